"""Per-request state, time and output limits, output capture and outcome helpers of the child.
Standard library only (see ``codemorph/sandbox/_worker.py``).
"""

import _signal
import ast
import builtins
import io

from .common import (ENVIRONMENT_MARKS, ITIMER_PROF_NUMBER, ITIMER_REAL_NUMBER, PROGRAM_FILE, SIGALRM_NUMBER, SIGPROF_NUMBER, mono)
from .protocol import write_all


class Timeout(BaseException):
    """Raised by the SIGALRM handler; a BaseException so ``except Exception`` misses it."""


class OutputLimit(BaseException):
    """Raised when a program writes more than the output limit."""


class _State:
    timed_out = False
    output_over = False
    out_of_lines = False
    #: refusals of the guard (:func:`codemorph.sandbox.guard.install_guard`) during the current request, and what
    #: the first one refused ("network access (socket.__new__)")
    refused = 0
    refused_what = None
    #: files the current request created or wrote inside the work directory (the guard caps them)
    written_files = set()
    #: a MemoryError was raised in a frame of the program during the current request
    #: (seen by a trace function's "exception" event), whether or not the program caught it
    memory_raised = False
    #: during a traced run without a line budget: what a passing time limit does instead of
    #: stopping the program (stop tracing and re-arm the limits; ``_Child.budget_stopper``);
    #: ``None`` otherwise (the limit stops the program)
    stop_tracing = None
    #: tracing stopped before the program ended (its lines, arcs and types are a lower bound)
    coverage_partial = False
    #: recursion limit while fingerprinting results (set once by the zygote's ``main``)
    post_recursion_limit = 10000
    #: no program of this process could have replaced the handler of SIGALRM or SIGPROF
    #: (none could reach a module yet: the child clears it before the first that can):
    #: :func:`arm` then installs the handler only when Python's table does not hold it
    handlers_ours = True
    #: ``time.monotonic()`` at which the wall-clock timer armed by :func:`arm` expires
    #: (infinite once :func:`disarm` ended the step: a signal of a timer left running is
    #: then not a timeout)
    alarm_deadline = float("inf")
    #: the child's own file descriptors (result and acknowledgement pipes, output capture,
    #: work directory, ``/dev/null``), which the guard refuses to ``open`` for a program
    protocol_fds = frozenset()


STATE = _State()


#: words of a program that can observe when an object dies
_LIFETIME_WORDS = ("__del__", "weakref", "finalize", "getrefcount")


def observes_lifetimes(code):
    """Whether the program may observe when its objects die (``__del__``, ``weakref``,
    ``weakref.finalize``, ``sys.getrefcount``): such a program's traced runs collect no
    types of locals.  Reading ``frame.f_locals`` in a trace function makes CPython 3.11
    keep a dict of the frame's locals, re-synced at every trace event, so an object
    dropped by ``del a`` or ``a = None`` lives until the next line event: ``__del__``
    runs later and a weak reference still answers on the same line, which a plain
    interpreter does not show (tester's F14).  Lines and arcs alone never read
    ``f_locals``."""
    return any(w in code for w in _LIFETIME_WORDS)


def exc_glob(frame, event, arg):
    """Global trace function of an untraced run whose program can catch a MemoryError
    (:func:`_may_catch_memory`): only the program's frames get :func:`exc_local`, with
    line events off (``f_trace_lines``), so a frame costs one call event and its
    exception events, not one event per line."""
    if frame.f_code.co_filename != PROGRAM_FILE:
        return None
    frame.f_trace_lines = False
    return exc_local


def exc_local(frame, event, arg):
    if event == "exception" and issubclass(arg[0], MemoryError):
        STATE.memory_raised = True
    return exc_local


#: exception classes that a handler naming them catches without catching MemoryError
_NOT_MEMORY = frozenset(
    n for n, v in vars(builtins).items()
    if isinstance(v, type) and issubclass(v, BaseException) and not issubclass(MemoryError, v))


def may_catch_memory(code):
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


def environment_shown(out):
    """What part of a completed outcome shows the sandbox itself (its module name or file
    name), as ``"its output shows the sandbox's file name ('<program>')"``, or ``None``.  Such
    an outcome (a warning or traceback printed with the program's file name, an exception
    message naming ``<class '__codemorph_program__.C'>``) differs under every other harness.
    The result's repr is handled apart (:func:`_environment_repr`)."""
    exc = out.get("exception") or {}
    for what, text in (("its output", out.get("stdout")),
                       ("its exception message", exc.get("message") if isinstance(exc, dict) else None)):
        if text:
            for mark, name in ENVIRONMENT_MARKS:
                if mark in text:
                    return f"{what} shows {name} ({mark!r})"
    return None


def environment_repr(out):
    """A result whose repr shows the sandbox's module or file name (``str(C)`` of a class the
    program defined, ``repr(f.__code__)``) loses its repr: ``value_repr`` becomes ``None``
    with a ``repr_error`` saying why and ``literal_ok`` is false, so it is never written as
    an output; the status stays ``returned`` and the fingerprint is kept, so an original and
    a rewrite that return such a value are still compared (they share the sandbox)."""
    text = out.get("value_repr")
    if not text:
        return
    for mark, name in ENVIRONMENT_MARKS:
        if mark in text:
            out["value_repr"] = None
            out["literal_ok"] = False
            out["repr_error"] = (f"repr shows {name} ({mark!r}), which depends on the harness that runs the "
                                 f"program, so it is not a ground truth")
            return


def environment_outcome(out, shown):
    """Turn ``out`` into an ``"environment"`` outcome: what the program returned, printed or
    raised shows codemorph's sandbox (``shown``), so under a harness that runs the module as
    ``__main__`` from a file it differs: never compared nor written.  The result and
    exception are dropped, as for a refusal."""
    then = "returned" if out["status"] == "returned" else f"raised {(out.get('exception') or {}).get('type')}"
    detail = (f"{shown}: the outcome depends on the harness that runs the program (the program {then}), "
              f"so it is not a ground truth")
    out["note"] = f"{detail}; {out['note']}" if out.get("note") else detail
    out["status"] = "environment"
    for k in ("value_repr", "fingerprint", "exception", "args_fingerprint", "output_matches", "repr_error",
              "compare_error"):
        out[k] = None
    out["literal_ok"] = False


def memory_outcome(out):
    """Turn ``out`` into a ``"memory"`` outcome: a MemoryError was raised during the run
    and the program caught it (or ended otherwise): at the sandbox's address-space limit,
    not in a plain interpreter, so the outcome is memory exhaustion, like a swallowed
    timeout is a timeout."""
    then = "returned" if out["status"] == "returned" else f"ended with status {out['status']}"
    detail = f"a MemoryError was raised during the run (the sandbox's memory limit) and the program then {then}"
    out["note"] = f"{detail}; {out['note']}" if out.get("note") else detail
    out["status"] = "memory"
    for k in ("value_repr", "fingerprint", "args_fingerprint", "output_matches", "repr_error", "compare_error"):
        out[k] = None
    out["exception"] = {"type": "MemoryError", "message": "", "line": None}
    out["literal_ok"] = False


NO_LIMIT = 1 << 62


def stop_out_of_lines():
    """The request's line budget is spent: stop the program like a timeout (the trace
    function's exception also turns tracing off, so a program that swallows it runs on
    untraced until its timers stop it; its status is ``timeout`` either way)."""
    STATE.timed_out = True
    STATE.out_of_lines = True
    raise Timeout()


#: seconds before its deadline at which a SIGALRM is taken for an earlier step's timer
#: (:func:`_on_alarm`): far above the microsecond to which ``setitimer`` rounds
_ALARM_SLACK = 1e-4


def _on_alarm(signum, frame):
    if signum == SIGALRM_NUMBER and STATE.handlers_ours and mono() < STATE.alarm_deadline - _ALARM_SLACK:
        # the wall-clock timer of a step that ended (disarm() leaves it running when no
        # program could have replaced this handler), or of an earlier step, whose signal
        # came while a new step was being armed: not this step's time limit.  Only where no
        # program could reach a module: elsewhere disarm() stops the timer (and
        # programs_may_signal() stopped the one left running), so an early SIGALRM is the
        # program's own (signal.alarm, os.kill, raise_signal), a timeout as it always was
        return
    stop = STATE.stop_tracing
    if stop is not None:  # the limit passed while tracing: tracing stops, the program goes on
        STATE.stop_tracing = None
        stop(frame)
        return
    STATE.timed_out = True
    raise Timeout()


def arm(seconds):
    """Start the wall-clock limit of a step (the program's run, the result's repr, its
    post-processing): ``seconds`` from now, at least 1 ms, SIGALRM raises :class:`Timeout`
    (or stops the tracing: :attr:`_State.stop_tracing`).  Replaces the timer of the step
    before, which :func:`disarm` may have left running."""
    STATE.timed_out = False
    if not STATE.handlers_ours or _signal.getsignal(SIGALRM_NUMBER) is not _on_alarm:
        _signal.signal(SIGALRM_NUMBER, _on_alarm)  # the program may have replaced the handler
    seconds = max(seconds, 0.001)
    STATE.alarm_deadline = mono() + seconds  # before the timer starts: it never expires earlier
    _signal.setitimer(ITIMER_REAL_NUMBER, seconds)


def programs_may_signal():
    """Called before the first request of a process that could reach a module (and so send
    itself SIGALRM, or replace the handler): stops the wall-clock timer :func:`disarm` may have
    left running (while its signal is still ignored) and clears :attr:`_State.handlers_ours`,
    after which :func:`disarm` stops the timer at every step and :func:`_on_alarm` takes every
    SIGALRM for the step's limit."""
    if STATE.handlers_ours:
        STATE.alarm_deadline = _INFINITY
        _signal.setitimer(ITIMER_REAL_NUMBER, 0)
        STATE.handlers_ours = False


def disarm():
    """End the step's wall-clock limit.  The timer itself is stopped only in a process where
    a program could have replaced the signal's handler (:attr:`_State.handlers_ours` false):
    otherwise it is left running, one system call less per step, and the handler ignores its
    signal (:func:`_on_alarm`); the next step's :func:`arm` replaces it, and a process never
    runs a program before arming its step."""
    STATE.alarm_deadline = _INFINITY
    if not STATE.handlers_ours:
        _signal.setitimer(ITIMER_REAL_NUMBER, 0)


_INFINITY = float("inf")


def arm_cpu(seconds):
    """A CPU-time limit (user + system seconds of this process, ``ITIMER_PROF``) on top of
    the wall-clock one: an endless loop stops after ``seconds`` of CPU whatever the load."""
    if not STATE.handlers_ours or _signal.getsignal(SIGPROF_NUMBER) is not _on_alarm:
        _signal.signal(SIGPROF_NUMBER, _on_alarm)
    _signal.setitimer(ITIMER_PROF_NUMBER, max(seconds, 0.001))


def disarm_cpu():
    _signal.setitimer(ITIMER_PROF_NUMBER, 0)


class Capture(io.TextIOBase):
    """``sys.stdout``/``sys.stderr`` of a program: writes go straight to fd 1 (a memory
    file shared with fd 2), so text and ``os.write(1, ...)`` bytes keep their order; the
    total is bounded by the output limit."""

    def __init__(self, limit):
        self.limit = limit
        self.written = 0
        #: something was (or began to be) written to fd 1 through this object
        self.touched = False
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
        self.touched = True
        room = self.limit - self.written
        if len(data) > room:
            if room > 0:
                write_all(1, data[:room])
            self.written = self.limit
            STATE.output_over = True
            raise OutputLimit()
        write_all(1, data)
        self.written += len(data)

    def flush(self):
        pass


class ErrCapture(io.TextIOBase):
    """``sys.stderr`` of a ``stdin`` request: kept apart from standard output (the row's
    output is standard output alone), in memory, bounded by the output limit."""

    def __init__(self, limit):
        self.limit = limit
        self.parts = []
        self.written = 0

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

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        n = len(s.encode("utf-8", "backslashreplace"))
        if self.written + n > self.limit:
            STATE.output_over = True
            raise OutputLimit()
        self.parts.append(s)
        self.written += n
        return len(s)

    def flush(self):
        pass

    def text(self):
        return "".join(self.parts)


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


def exception_info(exc):
    try:
        msg = str(exc)
    except BaseException:
        msg = "<str() of the exception failed>"
    line = None
    # the line of the innermost ``<program>`` entry: looked for from the innermost entry
    # outwards, since reading an entry's ``tb_frame`` raises an audit event (the guard's
    # hook runs in Python): a RecursionError's traceback has some 10,000 entries
    entries = []
    tb = exc.__traceback__
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    while entries:  # (list methods only: a program may have rebound a builtin)
        tb = entries.pop()
        if tb.tb_frame.f_code.co_filename == PROGRAM_FILE:
            line = tb.tb_lineno
            break
    entries = tb = None
    if line is None and isinstance(exc, SyntaxError) and exc.filename == PROGRAM_FILE:
        line = exc.lineno
    return {"type": type(exc).__name__, "message": msg[:500], "line": line}


def timeout_of(req, limits):
    t = req.get("timeout")
    return float(t) if t else limits["timeout"]


def cpu_timeout_of(req):
    t = req.get("cpu_timeout")
    return float(t) if t else None
