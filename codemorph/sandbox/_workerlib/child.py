"""The forked child that runs one batch of requests (:class:`_Child`, :func:`child_main`).
Standard library only (see ``codemorph/sandbox/_worker.py``).
"""

import _signal
import _thread
import ast
import builtins
import gc
import io
import os
import re
import resource
import shutil
import signal
import sys
import types as _types
import warnings

from .common import HDR, IDX, MARK, SELF_KILLED, RESULT_HEAD, MISSING, MODULE_NAME, PACK, PROGRAM_FILE, pack_arguments, perf
from .execution import (Capture, ErrCapture, OutputLimit, STATE, Timeout, arm, arm_cpu, cpu_timeout_of, disarm, disarm_cpu, environment_outcome, environment_repr, environment_shown, exc_glob, exc_local, exception_info, may_catch_memory, memory_outcome, observes_lifetimes, programs_may_signal, timeout_of)
from .fingerprint import fingerprint
from ..guard import prepared_guard
from .protocol import encode_outcome, read_exact, write_all
from .tracer import CoverageTracer, Tracer, c_tracer_available, resumes_frames


try:
    import ctypes

    _libc = ctypes.CDLL(None)
    _prctl = _libc.prctl  # looked up once, in the zygote
    # neither its result nor errno is read (the child checks its parent itself): with no
    # result type and no errno swap, a call touches less of ctypes (about 20 copy-on-write
    # faults fewer per child)
    _prctl.restype = None
except Exception:  # pragma: no cover - non-Linux
    _libc = _prctl = None


#: ``sys.settrace`` as the child found it: a program may rebind the name in ``sys`` (the
#: child would then call the program's function when it stops tracing)
_settrace = sys.settrace


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


_SIGXFSZ = int(signal.SIGXFSZ)
_SIGINT = int(signal.SIGINT)
_SIGKILL = int(signal.SIGKILL)

#: line events of a run traced with types of locals after which coverage.py's C tracer takes
#: over (when it can: see :meth:`_Child.tracer_for`): the types are those seen in the first
#: this many line events (``types_partial`` in the outcome), lines and arcs stay exact.  The
#: line budget of ``generate``'s mutant runs is 50,000; no CRUXEval seed run comes near this.
TYPES_SAMPLE_LINES = 20_000

#: mode of the batch's work directory (``Zygote.batch`` creates it so)
_WORKDIR_MODE = 0o700

#: ``sys`` attributes the child sets itself before every request (:meth:`_Child.reset`)
_SYS_PER_REQUEST = frozenset({"stdout", "stderr", "stdin", "unraisablehook", "displayhook", "excepthook", "argv"})

#: a request that can reach a module and names one of these may have changed process state
#: that the child cannot undo (codec search functions, fork or exit handlers, signal
#: handlers, audit hooks, the C locale or environment, time zone, fault handler, process
#: group or session): the next request runs in a fresh child
_TAINT_WORDS = ("register", "signal", "addaudithook", "locale", "putenv", "unsetenv", "tzset", "faulthandler",
                "setdlopenflags", "setsid", "setpgrp", "setpgid",
                # a sqlite3 connection the program dropped may still be finalized (closing its
                # database and journal files by name) while the next program runs
                "sqlite3")


#: the note's words for a refusal after the run (``codemorph.jobs.generate`` looks for them)
AFTER_RUN = "after the program returned, while its result was printed or compared with the expected output"


def _refused_outcome(out, after_run=False):
    """Turn ``out`` into a ``"refused"`` outcome: the guard refused something the program
    asked for, so what it did next (caught the ``PermissionError`` and returned, raised it,
    raised something else) is an artifact of the sandbox, not of Python, and must never be
    compared or recorded as a program's behaviour.  The result and exception are dropped;
    the note names the first refusal (and what the program did afterwards).  ``after_run``:
    the refusal came once the run was over (the result's ``repr``, its comparison, or the
    evaluation of the request's expected output, a text that is not the program's)."""
    status = out["status"]
    exc = out.get("exception")
    more = f"; {STATE.refused - 1} more refusal(s)" if STATE.refused > 1 else ""
    if after_run:
        detail = f"the sandbox refused {STATE.refused_what}{more} {AFTER_RUN}"
    else:
        if status == "returned":
            then = "returned normally"
        elif exc and status in ("raised", "bad-code", "bad-input"):
            then = f"raised {exc.get('type')}"
        else:
            then = f"ended with status {status}"
        detail = f"the sandbox refused {STATE.refused_what}{more}; the program then {then}"
    out["note"] = f"{detail}; {out['note']}" if out.get("note") else detail
    out["status"] = "refused"
    for k in ("value_repr", "fingerprint", "exception", "args_fingerprint", "output_matches", "repr_error",
              "compare_error"):
        out[k] = None
    out["literal_ok"] = False



def judge_text(text):
    """Standard output as an online judge's checker compares it (the rule of
    ``codemorph.rows.codemind.same_stdout``): ``\\r\\n``/``\\r`` line ends are ``\\n``,
    spaces and tabs at the end of a line and empty lines at the end do not count."""
    lines = [ln.rstrip(" \t") for ln in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


class _Child:
    """State of the forked child that runs one batch."""

    def __init__(self, limits, wfd, ack_fd, cap_fd, cwd, mark, snapshot=None):
        if snapshot is None:
            snapshot = process_snapshot()
        self.limits = limits
        self.wfd = wfd
        self.ack_fd = ack_fd
        self.mark = mark
        self.progress_count = 0
        self.cap_fd = cap_fd
        self.cwd = cwd
        self.builtins_snapshot, self.sys_vars, self.modules = snapshot
        #: the version tag of the builtins dict when it last held exactly the snapshot's
        #: objects (:meth:`restore_builtins`; ``None``: not known)
        self.builtins_tag = _SNAPSHOT_TAG[1] if _SNAPSHOT_TAG[0] is snapshot else None
        self.codes = {}
        self.catchers = {}  # code -> _may_catch_memory(code)
        self.lifetime_codes = {}  # code -> observes_lifetimes(code)
        self.resumers = {}  # code -> resumes_frames(compiled code)
        self.cycle_codes = {}  # code -> cycle_functions(code)
        self.unraisable = []
        self.arg_codes = {}
        self.compile_depth = None  # frames on the stack in compile_args (the same for every request)
        self.eval_codes = {}
        self.call_codes = {}
        self.cap = None
        self.stdin = None
        #: a request of this child could reach a module (:data:`_REACH_WORDS`; set before it
        #: runs): until then no program could change builtins, ``sys``, signal handlers or
        #: the current directory, so :meth:`reset` need not restore them
        self.reached = False
        self.cwd_fd = os.open(cwd, os.O_RDONLY)
        self.null_fd = os.open(os.devnull, os.O_RDONLY)
        # process state a program may change, restored by reset() and restore_process_state()
        # (sys hooks, sys.path, os.environ, umask, gc, warnings, ...): the zygote's, the same
        # in every child, taken by the zygote before it forks (class attributes set by
        # state_template)
        state_template()
        #: the work directory may hold a file although the current request wrote none (an
        #: earlier child of this batch left one that could not be removed): every request
        #: then looks for a file at the file-size limit (:meth:`file_at_limit`)
        self.workdir_dirty = True
        try:
            self.workdir_dirty = not self.clean_workdir()  # files an earlier child of this batch left
        except OSError:
            pass

    def progress(self, phase):
        """Tell the zygote's watchdog that the child moved on (a new request, or the next
        post-processing step), without waking it: a counter in shared memory that the zygote
        reads only when a deadline passes."""
        self.progress_count += 1
        MARK.pack_into(self.mark, 0, self.progress_count, phase)

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
        if self.reached:
            # builtins, sys.path, sys hooks and the current directory: only a request that
            # can reach a module could have changed them
            self.restore_builtins()
            sys.path[:] = self.path_snapshot
            for k, v in self.sys_snapshot.items():
                setattr(sys, k, list(v) if k == "argv" else v)
            try:
                os.fchdir(self.cwd_fd)
            except OSError:
                pass
        sys.setrecursionlimit(self.limits["recursion_limit"])
        # "Exception ignored in: <function ... at 0x...>" from finalizers depends on when the
        # garbage collector runs and carries addresses: keep it out of the output (a note
        # counts it), or it shows as a false difference, even in a later request
        self.unraisable = []
        sys.unraisablehook = self._on_unraisable
        # the capture file is emptied only when something may have written to it since it
        # was last emptied: a Capture (which notes it, :attr:`Capture.touched`) or, after a
        # request that could reach a module, anything (``os.write(1, ...)``)
        prev = self.cap
        if prev is None or prev.touched or self.reached:
            os.ftruncate(self.cap_fd, 0)
            os.lseek(self.cap_fd, 0, os.SEEK_SET)
            cap = self.cap = Capture(self.limits["output"])
            self.stdin = io.StringIO("")
        else:
            # an untouched capture, and an empty standard input (reading it at its end
            # changes nothing), are as good as new: no program could hold on to them
            cap = prev
            if self.stdin.closed:  # ``exit()`` closes sys.stdin
                self.stdin = io.StringIO("")
        sys.stdout = sys.stderr = cap
        sys.stdin = self.stdin
        STATE.output_over = False
        STATE.timed_out = False
        STATE.out_of_lines = False
        STATE.refused = 0
        STATE.refused_what = None
        STATE.written_files = set()
        STATE.memory_raised = False
        STATE.coverage_partial = False
        STATE.stop_tracing = None
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
            key, value = self.environ_decode
            items = {key(k): value(v) for k, v in self.environ_data.items()}
            env.clear()
            env.update(items)
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
            if d.get(k, MISSING) is not v and k not in _SYS_PER_REQUEST:
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
        """``(text, truncated)``: what the request wrote to standard output and error (the
        capture file), and whether it reached the output limit."""
        if not (self.cap.touched or self.reached):
            return "", False  # nothing wrote to the capture file since reset() emptied it
        size = os.fstat(self.cap_fd).st_size
        limit = self.limits["output"]
        os.lseek(self.cap_fd, 0, os.SEEK_SET)
        data = read_exact(self.cap_fd, min(size, limit)) or b""
        return data.decode("utf-8", "backslashreplace"), size >= limit

    def compile_args(self, args):
        obj = self.arg_codes.get(args)
        if obj is None:
            kept = ZYGOTE_ARG_CODES.get(args)
            if kept is not None:
                # the zygote compiled it with ZYGOTE_COMPILE_FRAMES frames of room: it
                # compiles here too only with at least as much room (Python's compiler
                # allows 3 nesting levels per frame left; a request's recursion_limit of 50
                # leaves 48 here)
                depth = self.compile_depth
                if depth is None:
                    depth, frame = 0, sys._getframe()
                    while frame is not None:
                        depth, frame = depth + 1, frame.f_back
                    self.compile_depth = depth
                if sys.getrecursionlimit() - depth >= ZYGOTE_COMPILE_FRAMES:
                    obj = kept[0]
        if obj is None:
            obj = compile(f"{PACK}({args})", "<input>", "eval", dont_inherit=True)
            if len(self.arg_codes) < 256:
                self.arg_codes[args] = obj
        return obj

    def compile_call(self, text):
        """The code objects of a ``call`` request's input: ``(statements or None,
        expression)``; the text is an expression, or statements ending with one (cached).
        Raises ``SyntaxError`` when it does not parse or does not end with an expression."""
        got = self.call_codes.get(text)
        if got is None:
            tree = ast.parse(text.strip(), "<input>", "exec")
            if not tree.body or not isinstance(tree.body[-1], ast.Expr):
                raise SyntaxError("a call input must be an expression, or statements ending with one")
            last = tree.body.pop()
            pre = compile(tree, "<input>", "exec", dont_inherit=True) if tree.body else None
            got = (pre, compile(ast.Expression(last.value), "<input>", "eval", dont_inherit=True))
            if len(self.call_codes) < 256:
                self.call_codes[text] = got
        return got

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

    def lifetimes(self, code):
        """:func:`~.execution.observes_lifetimes` of ``code``, cached."""
        known = self.lifetime_codes.get(code)
        if known is None:
            known = observes_lifetimes(code)
            if len(self.lifetime_codes) < 64:
                self.lifetime_codes[code] = known
        return known

    def catches_memory(self, code):
        """:func:`~.execution.may_catch_memory` of ``code``, cached."""
        catcher = self.catchers.get(code)
        if catcher is None:
            catcher = may_catch_memory(code)
            if len(self.catchers) < 256:
                self.catchers[code] = catcher
        return catcher

    def tracer_for(self, req, code, kind, reach=None):
        """The tracer of a request of input kind ``kind``: ``None`` (untraced), a
        :class:`~.tracer.CoverageTracer` (lines and arcs at C speed) when the request asks
        for lines and arcs only, with no line budget, of a program that cannot catch a
        MemoryError, and coverage's C tracer is available (``"python_tracer"`` in the
        request forbids it), else a :class:`~.tracer.Tracer` (types of a script's module
        level for a ``stdin`` request), which hands over to the C tracer after
        :data:`TYPES_SAMPLE_LINES` line events when it collects types, the C tracer may be
        used and the program has no generator or coroutine code (:meth:`resumes`, checked
        once the program is compiled).  ``reach``: whether the request can reach a module
        (:func:`_mentions` of :data:`_REACH_WORDS`; ``None``: searched here)."""
        if not req.get("trace"):
            return None
        types = req.get("types", True) and not self.lifetimes(code)
        counts = bool(req.get("counts"))
        max_lines = req.get("max_lines")
        c_ok = not req.get("python_tracer") and c_tracer_available() and not self.catches_memory(code)
        if not (types or counts or max_lines) and c_ok:
            return CoverageTracer()
        if reach is None and max_lines:
            reach = _mentions(req, _REACH_WORDS)
        cycles = None
        if max_lines and not counts and kind == "args" and req.get("args") is not None and not reach \
                and not self.lifetimes(code) and not self.catches_memory(code):
            # a budgeted run that goes round in a cycle is ended where the budget would end
            # it (Tracer.look_for_cycle), in the functions where a cycle can be told
            functions = self.cycle_functions(code)
            if functions:
                cycles = (functions, timeout_of(req, self.limits), cpu_timeout_of(req))
        # types of locals: sampled over the first TYPES_SAMPLE_LINES line events, then the
        # C tracer takes over for the lines and arcs of the rest (Tracer.hand_over)
        return Tracer(max_lines, types, counts, module_types=kind == "stdin",
                      hand_over_after=TYPES_SAMPLE_LINES if types and c_ok else None,
                      # snapshots of locals only after lines that bind one, for programs
                      # that cannot assign an object's class (Tracer's sparse_types)
                      sparse_types=types and not (_mentions(req, _REACH_WORDS) if reach is None else reach),
                      cycles=cycles)

    def cycle_functions(self, code):
        """:func:`cycle_functions` of ``code``, cached."""
        got = self.cycle_codes.get(code)
        if got is None:
            got = cycle_functions(code)
            if len(self.cycle_codes) < 64:
                self.cycle_codes[code] = got
        return got

    def resumes(self, code, codeobj):
        """:func:`~.tracer.resumes_frames` of the program's compiled module ``codeobj``,
        cached by its source text ``code``.  Such a program's run with types keeps the
        Python tracer to the end (:meth:`~.tracer.Tracer.keep`): after a hand-over the C
        tracer would add an arc at every resumption of a generator or coroutine."""
        got = self.resumers.get(code)
        if got is None:
            got = resumes_frames(codeobj)
            if len(self.resumers) < 256:
                self.resumers[code] = got
        return got

    def budget_stopper(self, tracer, code, timeout, cpu_timeout):
        """What the timers' handler does (``execution._on_alarm``) when a limit passes
        while the program is still traced: stop tracing (the C tracer, or ``sys.settrace``
        and the ``f_trace`` of every frame on the stack), mark the coverage partial, re-arm
        the wall-clock limit ``timeout`` and CPU limit ``cpu_timeout`` (seconds, ``None``:
        none) for the untraced rest, and count progress (the zygote's watchdog gives the
        rest a new ``timeout + grace``).  The rest is charged in full and the traced part
        not at all: a program whose untraced run takes at most the limit finishes (its
        untraced rest is shorter than that run), whatever tracing costs."""
        # a program that can catch a MemoryError keeps an exception-only tracer (the
        # C tracer is never used for one: it does not report exception events)
        catcher = not isinstance(tracer, CoverageTracer) and self.catches_memory(code)

        def stop(frame):
            tracer.stop()  # the C tracer (or the one a Tracer handed over to)
            _settrace(exc_glob if catcher else None)
            while frame is not None:
                if catcher and frame.f_code.co_filename == PROGRAM_FILE:
                    frame.f_trace_lines = False
                    frame.f_trace = exc_local
                else:
                    frame.f_trace = None
                frame = frame.f_back
            STATE.coverage_partial = True
            arm(timeout)
            if cpu_timeout is not None:
                arm_cpu(cpu_timeout)
            self.progress(0)
        return stop

    # -- one request ---------------------------------------------------------------
    def run(self, i, req, may_write=True, reach=None):
        """Run request number ``i`` (its wire dict ``req``); returns its outcome dict.
        ``may_write``: the request may have created or written a file (it can reach a module
        or names ``open``: :func:`_names_open`); when false and the work directory was empty
        before it, the directory is not searched for a file at the file-size limit.
        ``reach``: whether it can reach a module (:func:`_reach_and_open`; ``None``: searched
        when needed)."""
        timeout = timeout_of(req, self.limits)
        out = {"status": None, "value_repr": None, "fingerprint": None, "literal_ok": False,
               "exception": None, "args_fingerprint": None, "stdout": "", "output_matches": None,
               "duration": 0.0, "lines": None, "arcs": None, "types": None,
               "output_truncated": False, "repr_error": None, "note": None, "compare_error": None}
        code = req.get("code", "")
        entry = req.get("entry_point") or "f"
        args = req.get("args", "")
        expected = req.get("expected_output")
        kind = req.get("input_kind") or "args"
        tracer = self.tracer_for(req, code, kind, reach)
        script = args is None and kind == "args"
        self.progress(0)
        self.reset()
        err = None
        if kind == "stdin":
            # a plain ``python main.py < input``: standard input, standard error apart
            err = ErrCapture(self.limits["output"])
            sys.stderr = err
            sys.stdin = io.TextIOWrapper(io.BytesIO((req.get("stdin") or "").encode("utf-8")), encoding="utf-8")
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
        watcher = None
        if tracer is None:
            watcher = exc_glob if self.catches_memory(code) else None
        elif not isinstance(tracer, CoverageTracer):
            watcher = tracer.glob
        # a traced run without a line budget or line counts: the time limit, when it passes
        # while the program is still traced, stops the tracing and restarts for the untraced
        # rest (budget_stopper); counts of a run traced in part would be silently too low
        stop_tracing = None
        if tracer is not None and not req.get("max_lines") and not req.get("counts"):
            stop_tracing = self.budget_stopper(tracer, code, timeout, cpu_timeout_of(req))
        # the program's module, registered as a plain ``python program.py`` run registers
        # ``__main__`` (dataclasses, typing and pickle look classes up through sys.modules);
        # dropped with the other modules the request added (_child_main)
        module = _types.ModuleType(MODULE_NAME)
        sys.modules[MODULE_NAME] = module
        g = module.__dict__
        if kind == "stdin":
            g["__name__"] = "__main__"  # the script's main block runs, as under ``python main.py``
        value = None
        call_args = None
        phase = "compile"
        cpu_timeout = cpu_timeout_of(req)
        t0 = perf()
        try:
            arm(timeout)
            if cpu_timeout is not None:
                arm_cpu(cpu_timeout)
            try:
                codeobj = self.compile(code)
                if tracer is not None and getattr(tracer, "handing", False) and self.resumes(code, codeobj):
                    tracer.keep()  # generators or coroutines: no hand-over (Tracer.hand_over)
                phase = "module"
                if watcher is not None:
                    _settrace(watcher)
                elif tracer is not None:
                    tracer.start()
                STATE.stop_tracing = stop_tracing
                if kind == "stdin":
                    if tracer is not None:
                        tracer.counting = True
                    try:
                        exec(codeobj, g)
                    except SystemExit as stop:
                        if stop.code not in (None, 0):
                            raise
                elif kind == "call":
                    exec(codeobj, g)
                    phase = "args"
                    pre, expr = self.compile_call(args)
                    phase = "call"
                    if tracer is not None:
                        tracer.counting = True
                    if pre is not None:
                        exec(pre, g)
                    value = eval(expr, g)
                else:
                    exec(codeobj, g)
                if not script and kind == "args":
                    phase = "args"
                    # CRUXEval evaluates f(<args>) in the module's globals: evaluate the same
                    # argument list there, through a packing function under a reserved name
                    # that is removed before the call
                    argcode = self.compile_args(args)
                    g[PACK] = pack_arguments
                    try:
                        a, k = eval(argcode, g)
                    finally:
                        g.pop(PACK, None)
                    call_args = [list(a), k]
                    fn = g.get(entry, MISSING)
                    if fn is MISSING:
                        phase = "entry"
                        raise NameError(f"entry point {entry!r} is not defined by the program")
                    phase = "call"
                    if tracer is not None:
                        tracer.counting = True
                    value = fn(*a, **k)
                phase = "done"
            finally:
                STATE.stop_tracing = None
                if tracer is not None:
                    tracer.stop()
                _settrace(None)
                disarm()
                if cpu_timeout is not None:
                    disarm_cpu()
        except BaseException as exc:  # noqa: B902 - the program may raise anything
            out["duration"] = perf() - t0
            if STATE.timed_out:
                out["status"] = "timeout"
            elif STATE.output_over:
                out["status"] = "output-limit"
            elif isinstance(exc, MemoryError):
                out["status"] = "memory"
                out["exception"] = {"type": "MemoryError", "message": "", "line": None}
            else:
                if phase == "compile" or phase == "entry" or (phase == "module" and not script and kind != "stdin"):
                    out["status"] = "bad-code"
                elif phase == "args":
                    out["status"] = "bad-input"
                else:
                    out["status"] = "raised"
                try:
                    arm(timeout)
                    try:
                        out["exception"] = exception_info(exc)
                    finally:
                        disarm()
                except BaseException:
                    out["exception"] = {"type": type(exc).__name__, "message": "", "line": None}
            exc = None
        else:
            out["duration"] = perf() - t0
            if STATE.timed_out:  # the program swallowed the timeout
                out["status"] = "timeout"
            elif STATE.output_over:
                out["status"] = "output-limit"
            else:
                out["status"] = "returned"
        if STATE.memory_raised and out["status"] in ("returned", "raised", "bad-code", "bad-input"):
            memory_outcome(out)  # a MemoryError the program caught: memory exhaustion
        if STATE.coverage_partial:
            out["coverage_partial"] = True
            limit = f"{timeout:g} s" + (f" or {cpu_timeout:g} s of CPU" if cpu_timeout is not None else "")
            extra = (f"tracing stopped when the time limit ({limit}) passed; the program ran on untraced "
                     f"under the same limit again (its lines, arcs and types are a lower bound)")
            out["note"] = f"{out['note']}; {extra}" if out.get("note") else extra
        if STATE.out_of_lines and out["status"] == "timeout":
            out["note"] = f"stopped after {req.get('max_lines')} traced lines (the request's line budget)"
        # builtins and output are the program's no longer
        self.reset_builtins_only()
        if STATE.refused:
            _refused_outcome(out)
        if err is not None:
            out["stderr"] = err.text()
            if out["status"] == "returned":
                value = self.read_output()[0]  # a script's value: what it wrote to standard output
        self.progress(1)
        self.post(i, out, value, call_args, expected, g, script, timeout, verbatim=kind == "stdin")
        if STATE.refused and out["status"] != "refused":  # e.g. the result's __repr__ opened a socket
            _refused_outcome(out, after_run=True)
        text, truncated = self.read_output()
        out["stdout"] = text
        if truncated and out["status"] in ("returned", "raised", "bad-code", "bad-input"):
            # e.g. os.write(1, ...) past the limit: the file-size limit made it fail
            out["status"] = "output-limit"
        elif out["status"] in ("returned", "raised", "bad-code", "bad-input") \
                and (may_write or self.workdir_dirty) and self.file_at_limit():
            # a file the program wrote in its work directory reached the file-size limit: a
            # write failed (``OSError: File too large``) where a plain run's would not have
            out["status"] = "output-limit"
            note = "a file the program wrote reached the sandbox's file-size limit"
            out["note"] = f"{out['note']}; {note}" if out.get("note") else note
        out["output_truncated"] = truncated or out["status"] == "output-limit"
        if out["status"] in ("returned", "raised"):
            shown = environment_shown(out)
            if shown is not None:
                environment_outcome(out, shown)
            elif out["status"] == "returned":
                environment_repr(out)
        if self.unraisable:
            names = ", ".join(sorted(set(self.unraisable)))
            extra = (f"{len(self.unraisable)} exception(s) ignored in finalizers ({names}); "
                     f"left out of the output")
            out["note"] = f"{out['note']}; {extra}" if out.get("note") else extra
        if isinstance(tracer, CoverageTracer):
            out.update(tracer.result())  # lines and arcs: no program code runs
        elif tracer is not None:
            # type names may run a metaclass's descriptors: under the timer
            try:
                arm(timeout)
                try:
                    out.update(tracer.result())
                finally:
                    disarm()
            except BaseException:
                out.update(tracer.result(with_types=False))
                out["note"] = (f"{out['note']}; " if out.get("note") else "") + "types of locals not collected"
        return out

    def file_at_limit(self):
        """Whether a regular file in the work directory (or below it, 1,000 entries at most)
        is as large as the file-size limit (``RLIMIT_FSIZE``, the output limit + 4 KiB)."""
        limit = self.limits["output"] + 4096
        stack, seen = [self.cwd], 0
        try:
            while stack and seen < 1000:
                with os.scandir(stack.pop()) as entries:
                    for e in entries:
                        seen += 1
                        if e.is_dir(follow_symlinks=False):
                            stack.append(e.path)
                        elif e.is_file(follow_symlinks=False) and e.stat(follow_symlinks=False).st_size >= limit:
                            return True
        except OSError:
            pass
        return False

    def reset_builtins_only(self):
        # checked after every request, not only after one that could reach a module: the
        # word search is a heuristic, and a builtin a program rebound would run its code in
        # the post-processing below (and in the next request)
        self.restore_builtins()
        sys.stdout = sys.stderr = self.cap  # a __repr__ may print: it still counts
        sys.setrecursionlimit(self.limits["recursion_limit"])
        if sys.get_int_max_str_digits() != self.int_digits:
            # the result's repr and the literal check run at the interpreter's default
            # int-to-str digit limit: a program that lifted it returns a 5,000-digit int
            # whose literal a harness cannot even compile (``assert f(x) == <output>``)
            sys.set_int_max_str_digits(self.int_digits)

    def restore_builtins(self):
        """Make the builtins dict equal to the snapshot again (cleared and refilled) if it is
        not.  The comparison (about 2 microseconds, and in a fresh child a copy-on-write
        fault for every page holding a builtin: comparing two dicts takes a reference to each
        value) is skipped while the dict's PEP 509 version tag (:data:`_BUILTINS_TAG`) is
        the one it had when it last held exactly the snapshot's objects: CPython changes
        the tag at every change of the dict (a value set, even to an equal object, a key
        added or removed, a clear).  That tag is taken where the dict is known to hold them:
        by the zygote when it copies the dict for the snapshot (:func:`process_snapshot`),
        and here right after a refill.  A comparison that finds the dict equal records no
        tag (its values may be equal objects, not the same ones): the next check compares
        again."""
        tag = _BUILTINS_TAG
        if tag is not None and tag.value == self.builtins_tag:
            return
        d = builtins.__dict__
        if d != self.builtins_snapshot:
            d.clear()
            d.update(self.builtins_snapshot)
            if tag is not None:
                self.builtins_tag = tag.value

    def post(self, i, out, value, call_args, expected, g, script, timeout, verbatim=False):
        """repr (under its own timer), then fingerprints, literal check and expected-output
        check (under one more timer); ``verbatim``: the expected output is text (a ``stdin``
        request), compared as the online judges Avatar's programs come from compare it
        (:func:`judge_text`), not a literal evaluated in the program's globals."""
        status = out["status"]
        if status == "returned":
            try:
                arm(timeout)
                try:
                    r = repr(value)
                    if not isinstance(r, str):
                        raise TypeError("__repr__ returned non-string")
                    if len(r) > self.limits["repr_limit"]:
                        out["repr_error"] = f"repr is {len(r)} characters, over the limit"
                    else:
                        out["value_repr"] = r
                finally:
                    disarm()
            except Timeout:
                out["repr_error"] = "repr timed out"
            except BaseException as exc:
                try:
                    out["repr_error"] = f"{type(exc).__name__}: {exc}"[:500]
                except BaseException:
                    out["repr_error"] = type(exc).__name__
            self.progress(1)
        step = "fingerprint"
        try:
            arm(timeout)
            try:
                # our own (non-recursive-user-code) traversal: deep values must not fail it
                sys.setrecursionlimit(max(self.limits["recursion_limit"], STATE.post_recursion_limit))
                if status == "returned":
                    out["fingerprint"] = fingerprint(value)
                if status in ("returned", "raised") and call_args is not None:
                    step = "args fingerprint"
                    out["args_fingerprint"] = fingerprint(call_args)
                sys.setrecursionlimit(self.limits["recursion_limit"])
                if status == "returned" and out["value_repr"] is not None:
                    step = "literal check"
                    try:
                        if _round_trips(value):
                            out["literal_ok"] = True  # what the evaluation below would find
                        else:
                            back = eval(self.compile_eval(out["value_repr"]), {})
                            out["literal_ok"] = bool(type(back) is type(value) and back == value)
                    except (Timeout, OutputLimit):
                        raise
                    except BaseException:
                        out["literal_ok"] = False
                if expected is not None and not script:
                    step = "expected output"
                    if status == "returned" and verbatim:
                        out["output_matches"] = value == expected or judge_text(value) == judge_text(expected)
                    elif status == "returned":
                        try:
                            want = eval(self.compile_eval(expected), g)
                        except (Timeout, OutputLimit):
                            raise
                        except BaseException:
                            out["output_matches"] = False
                        else:
                            try:
                                out["output_matches"] = bool(value == want)
                            except (Timeout, OutputLimit):
                                raise
                            except BaseException as exc:
                                # the value's (or the expected value's) __eq__ or __bool__ raised
                                out["output_matches"] = False
                                try:
                                    out["compare_error"] = f"{type(exc).__name__}: {exc}"[:500]
                                except BaseException:
                                    out["compare_error"] = type(exc).__name__
                    else:
                        out["output_matches"] = False
            finally:
                disarm()
        except Timeout:
            out["note"] = f"{step} of the result timed out"
            out["incomplete"] = True
        except BaseException as exc:
            out["note"] = f"{step} of the result failed: {type(exc).__name__}"[:500]
            out["incomplete"] = True



_INFINITY = float("inf")

# NFKC for the word search (:func:`_searchable`); the module is left out of sys.modules, as
# a worker without it had it: a program that imports it gets a fresh one, as before
_had_unicodedata = "unicodedata" in sys.modules
import unicodedata  # noqa: E402
_nfkc = unicodedata.normalize
if not _had_unicodedata:
    del sys.modules["unicodedata"]
del unicodedata


def _round_trips(x, depth=0, budget=None):
    """Whether ``eval(repr(x), {})`` certainly gives a value of the same type equal to ``x``
    without evaluating it: ``x`` is a str, int, bool, ``None`` or finite float, or a list,
    tuple, set, frozenset or dict (exact types only: no program code runs) of such values,
    at most 20 levels deep and 2,000 values in all.  ``False`` means "not known" (the
    literal is then evaluated): a NaN or infinity (whose repr does not evaluate), another
    type, a larger or deeper value (a cyclic one among them)."""
    if budget is None:
        budget = [2000]
    budget[0] -= 1
    if budget[0] < 0 or depth > 20:
        return False
    t = type(x)
    if t is str or t is int or t is bool or x is None:
        return True
    if t is float:
        return -_INFINITY < x < _INFINITY
    if t is list or t is tuple or t is set or t is frozenset:
        for item in x:
            if not _round_trips(item, depth + 1, budget):
                return False
        return True
    if t is dict:
        for k, v in x.items():
            if not (_round_trips(k, depth + 1, budget) and _round_trips(v, depth + 1, budget)):
                return False
        return True
    return False


_TEMPLATE = None


def state_template():
    """The attributes of every :class:`_Child` that copy the process state a program may
    change, for :meth:`_Child.reset` and :meth:`_Child.restore_process_state` to restore
    (``sys`` hooks and ``sys.path``, ``os.environ``, the umask, the garbage collector,
    ``warnings``, the int-to-str digit limit, the switch interval, asyncgen hooks,
    coroutine origin tracking, ``sys.meta_path``/``sys.path_hooks`` and the sizes of the
    ``copyreg`` registries), as a dict of attribute name to value, also set as class
    attributes of :class:`_Child`.  The zygote takes it once, after setting ``TMPDIR`` and
    before ``gc.freeze()`` (its own code changes none of it), and every child reads the same
    objects (it only compares and copies them back), each only when it needs it: taking it in
    every child cost about 100 copy-on-write faults per batch, and copying the references
    into each child's instance 16 more (every object's reference count)."""
    global _TEMPLATE
    if _TEMPLATE is None:
        umask = os.umask(0o022)
        os.umask(umask)
        _TEMPLATE = {
            "sys_snapshot": {"displayhook": sys.displayhook, "excepthook": sys.excepthook, "argv": list(sys.argv)},
            "path_snapshot": list(sys.path),
            "environ": os.environ,
            "environ_data": dict(os.environ._data),
            # decoded when restored (restore_process_state), not for every child
            "environ_decode": (os.environ.decodekey, os.environ.decodevalue),
            "umask": umask,
            "gc_threshold": gc.get_threshold(),
            "gc_debug": gc.get_debug(),
            "gc_callbacks": list(gc.callbacks),
            "warnings_filters": warnings.filters,
            "warnings_snapshot": list(warnings.filters),
            "warnings_default": warnings.defaultaction,
            "warnings_once": dict(warnings.onceregistry),
            "int_digits": sys.get_int_max_str_digits(),
            "switch_interval": sys.getswitchinterval(),
            "asyncgen_hooks": tuple(sys.get_asyncgen_hooks()),
            "coro_depth": sys.get_coroutine_origin_tracking_depth(),
            "sys_lists": [(lst, list(lst)) for lst in (sys.meta_path, sys.path_hooks)],
            "registries": [(d, len(d)) for d in _registries()],
        }
        for name, value in _TEMPLATE.items():
            setattr(_Child, name, value)
    return _TEMPLATE


#: the guard made by the zygote (:func:`prepare_guard`): installs it in a child
_GUARD = None
#: the child of this process (set by :func:`child_main`), which the guard syncs with the
#: zygote before a signal to it (:meth:`_Child.sync`)
_CURRENT = []


def _sync_current_child():
    _CURRENT[0].sync()


def _mark_self_kill():
    """Mark, for the zygote, that the program is sending itself ``SIGKILL`` (its death is then
    not the out-of-memory killer's)."""
    _CURRENT[0].progress(SELF_KILLED)


def prepare_guard(workdir, zygote_pid):
    """Make, in the zygote, the guard every child installs (:func:`~..guard.prepared_guard`
    for the work directory ``workdir``, the same path for every batch), so that a child
    does not resolve its directories again; also takes :func:`state_template` (after the
    zygote set ``TMPDIR``).  Called with ``workdir`` as the current directory, as a child
    has it (a relative directory on ``sys.path``, such as an editable install's
    ``__editable__...`` entry, is resolved against it)."""
    global _GUARD
    state_template()
    _GUARD = prepared_guard(workdir, STATE, _sync_current_child, zygote_pid, _mark_self_kill)


_SNAPSHOT = None
#: ``(snapshot, version tag of the builtins dict when the snapshot copied it)`` (:func:`process_snapshot`)
_SNAPSHOT_TAG = (None, None)


def _version_tag(d):
    """A ``ctypes.c_uint64`` reading the PEP 509 version tag (``ma_version_tag``) of the dict
    ``d``, or ``None`` where it cannot be read: no ctypes, an interpreter other than CPython
    3.10-3.13, or a layout or behaviour that the check here does not confirm (a dict of
    known size must show its ``ma_used`` just before the tag, and the tag must change at
    every kind of change: set, replace, update, pop, setdefault, popitem, clear, and a
    value replaced by an equal one).  ``d`` must outlive the view (the builtins dict does)."""
    try:
        import ctypes
        if sys.implementation.name != "cpython" or not (3, 10) <= sys.version_info[:2] <= (3, 13):
            return None
        word = ctypes.sizeof(ctypes.c_ssize_t)
        if word != 8 or ctypes.sizeof(ctypes.c_void_p) != 8:
            return None
        offset = 3 * word  # ob_refcnt, ob_type, ma_used
        probe = {}
        used = ctypes.c_ssize_t.from_address(id(probe) + offset - word)
        tag = ctypes.c_uint64.from_address(id(probe) + offset)
        seen = {tag.value}
        big = 1 << 70
        changes = (lambda: probe.__setitem__("a", 1), lambda: probe.__setitem__("a", 2),
                   lambda: probe.__setitem__("a", big), lambda: probe.__setitem__("a", big + 0),
                   lambda: probe.update(b=3), lambda: probe.pop("a"), lambda: probe.setdefault("c", 4),
                   probe.popitem, lambda: probe.__setitem__("d", 5), probe.clear)
        for change in changes:
            change()
            if used.value != len(probe) or tag.value in seen:
                return None
            seen.add(tag.value)
        return ctypes.c_uint64.from_address(id(d) + offset)
    except Exception:
        return None


#: the version tag of the builtins dict (:func:`_version_tag`), read by :meth:`_Child.restore_builtins`
_BUILTINS_TAG = _version_tag(builtins.__dict__)


def process_snapshot():
    """``(builtins, sys attributes, sys.modules)`` as dicts: what a child compares and
    restores (:class:`_Child`).  The zygote takes it once, before ``gc.freeze()`` (its own
    code changes none of the three), and again only if one of them changed size; every
    child then reads the same dicts.  Copying them in each child touched the reference count
    of every builtin, ``sys`` attribute and module: a copy-on-write page fault for each page
    they sit on."""
    global _SNAPSHOT, _SNAPSHOT_TAG
    snap = _SNAPSHOT
    if snap is None or len(snap[0]) != len(builtins.__dict__) or len(snap[1]) != len(vars(sys)) \
            or len(snap[2]) != len(sys.modules):
        snap = _SNAPSHOT = (dict(builtins.__dict__), dict(vars(sys)), dict(sys.modules))
        # the builtins dict holds exactly the copy's objects at this version
        _SNAPSHOT_TAG = (snap, _BUILTINS_TAG.value if _BUILTINS_TAG is not None else None)
    return snap


#: argument lists (``args`` of ``"args"`` requests) -> ``(code object, bytes it holds)``, compiled by the
#: zygote before it forks (:func:`precompile_args`) and kept across batches: a row's inputs
#: run in two batches (the original's, then its rewrites'), so each list is compiled once,
#: not once per batch
ZYGOTE_ARG_CODES = {}
_ZYGOTE_ARG_CODES_MAX = 4096
#: bytes the kept code objects may hold in all (:func:`_code_bytes`), and in one: the
#: zygote's memory counts against every child's address-space limit, and constant folding
#: makes a 10,000-character list hold megabytes (``'a0'*2048`` is 4 KiB of constant for 10
#: characters): kept without a bound, such lists made later programs run out of memory
_ZYGOTE_ARG_BYTES_MAX = 32 << 20
_ZYGOTE_ARG_BYTES_ONE = 160 << 10  # a 10,000-character list of plain numbers holds about 100 KiB
_zygote_arg_bytes = [0]
#: frames left below the recursion limit when the zygote compiles an argument list
#: (:func:`precompile_args`); a child uses the code only with at least this many left
ZYGOTE_COMPILE_FRAMES = 40


def _code_bytes(obj, limit):
    """Bytes held by the code object ``obj`` and its constants (nested code objects, tuples
    and frozensets followed; shared objects counted each time), or ``limit + 1`` as soon as
    the count passes ``limit``."""
    total, stack = 0, [obj]
    while stack:
        x = stack.pop()
        total += sys.getsizeof(x)
        if total > limit:
            return limit + 1
        t = type(x)
        if t is _types.CodeType:
            total += sys.getsizeof(x.co_code) + sys.getsizeof(x.co_linetable)
            stack.extend(x.co_consts)
            stack.extend(x.co_names)
        elif t is tuple or t is frozenset:
            stack.extend(x)
    return total


def precompile_args(reqs):
    """Compile, in the zygote, the argument lists of ``reqs`` (wire dicts) not compiled
    yet, exactly as :meth:`_Child.compile_args` would.  A list whose compilation raises or
    warns (a ``SyntaxWarning`` the child would print into the program's output) is left to
    the child, and so is one whose code object holds more than :data:`_ZYGOTE_ARG_BYTES_ONE`
    bytes.  At most :data:`_ZYGOTE_ARG_CODES_MAX` are kept, holding at most
    :data:`_ZYGOTE_ARG_BYTES_MAX` bytes in all (the oldest go first)."""
    cache = ZYGOTE_ARG_CODES
    added = False
    # compiled with ZYGOTE_COMPILE_FRAMES frames of room (how deep Python's compiler may nest
    # depends on the frames left below the recursion limit): a list that compiles here then
    # compiles in a child with as much room (_Child.compile_args), whatever limit it runs at
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + ZYGOTE_COMPILE_FRAMES)
    try:
        with warnings.catch_warnings():  # once for the batch, not per list (about 1.3 us each)
            warnings.simplefilter("error")
            for r in reqs:
                args = r.get("args")
                if not args or type(args) is not str or r.get("input_kind") or args in cache or len(args) > 10000:
                    continue
                try:
                    obj = compile(f"{PACK}({args})", "<input>", "eval", dont_inherit=True)
                except BaseException:  # noqa: B902 - the child compiles it again and reports the error
                    continue
                added = _keep_arg_code(cache, args, obj) or added
    finally:
        sys.setrecursionlimit(limit)
    return added


def _keep_arg_code(cache, args, obj):
    """Keep ``obj``, the code of the argument list ``args``, in ``cache`` (the zygote's
    :data:`ZYGOTE_ARG_CODES`) unless it holds too many bytes; returns whether it was kept."""
    size = _code_bytes(obj, _ZYGOTE_ARG_BYTES_ONE)
    if size > _ZYGOTE_ARG_BYTES_ONE:
        return False  # left to the child (whose memory it then counts against, as before)
    cache[args] = (obj, size)
    _zygote_arg_bytes[0] += size
    while len(cache) > _ZYGOTE_ARG_CODES_MAX or _zygote_arg_bytes[0] > _ZYGOTE_ARG_BYTES_MAX:
        _zygote_arg_bytes[0] -= cache.pop(next(iter(cache)))[1]
    return True


def _modules_snapshot():
    """``sys.modules`` and every loaded module's namespace, for :func:`_modules_changed`."""
    return dict(sys.modules), _module_spaces()


def _module_spaces():
    """Every loaded module's namespace (copied: a few thousand entries, ~1 ms after a fork)."""
    return {name: (m, dict(vars(m))) for name, m in sys.modules.items()
            if isinstance(m, _types.ModuleType) and name not in _RESET_MODULES}


#: a program (or its argument literal / expected output, evaluated in its globals) that
#: names none of these cannot reach a module object, so its modules need no check
#: (``_frame``: a generator's, coroutine's or traceback's frame, whose ``f_builtins`` is the
#: builtins dict and whose ``f_back`` chain reaches the child's own frames and globals;
#: ``gi_code``/``cr_code``/``ag_code``: a code object, whose ``replace(co_names=...)`` names
#: any global or builtin, ``__import__`` too, by a string built at run time)
_REACH_WORDS = ("import", "__", "exec", "eval", "compile", "getattr", "setattr", "delattr", "vars", "globals",
                "locals", "breakpoint", "help", "sys", "_frame", "gi_code", "cr_code", "ag_code")
_REACH_FIELDS = ("code", "args", "expected_output")


#: ``words`` -> the ``search`` of a regular expression matching any of them (the two word
#: lists are compiled when the zygote imports this module: a child that compiled them would
#: pay about 0.4 ms per batch)
_WORD_SEARCH = {}


def _mentions(req, words):
    """Whether the request's code, arguments or expected output spell any of ``words`` (a
    tuple of strings; one regular-expression search per field)."""
    search = _WORD_SEARCH.get(words)
    if search is None:
        search = _WORD_SEARCH[words] = re.compile("|".join(map(re.escape, words))).search
    code = req.get("code")
    if code:
        # a batch runs one or two programs on many inputs: the answer for a source text is
        # remembered (per word list; at most 64 texts)
        known = _CODE_MENTIONS.get((words, code))
        if known is None:
            known = bool(search(_searchable(code)))
            if len(_CODE_MENTIONS) < 64:
                _CODE_MENTIONS[(words, code)] = known
        if known:
            return True
    for f in ("args", "expected_output"):
        text = req.get(f)
        if text and search(_searchable(text)):
            return True
    return False


def _searchable(text):
    """``text`` as the word search reads it: Python's parser folds identifiers to NFKC
    (``ｅｘｅｃ`` is ``exec``, ``ｏｐｅｎ`` is ``open``), so a text that is not ASCII is
    searched with its NFKC form appended."""
    if text.isascii():
        return text
    return f"{text}\n{_nfkc('NFKC', text)}"


#: ``(words, source text)`` -> whether the text spells one of the words (:func:`_mentions`)
_CODE_MENTIONS = {}


_mentions({}, _REACH_WORDS)
_mentions({}, _TAINT_WORDS)
_mentions({}, ("open",))


def _names_open(req):
    """Whether the request's code, arguments or expected output spell ``open``.  A request
    that neither can reach a module (:data:`_REACH_WORDS`) nor names ``open`` cannot create
    or write a file, nor change other process state (:meth:`_Child.restore_process_state`)."""
    return _mentions(req, _OPEN_WORDS)


_OPEN_WORDS = ("open",)


def _reach_and_open(req):
    """``(reach, may_write)`` of a request: whether it can reach a module (spells a word of
    :data:`_REACH_WORDS`: :func:`_mentions`) and whether it may write a file (it can reach a
    module or names ``open``: :func:`_names_open`).  The answers for its source text are
    remembered (at most 64 texts), and its arguments and expected output are searched once
    for a word of either list: only when they spell one are they searched for each list."""
    code = req.get("code")
    known = _CODE_REACH.get(code) if code else (False, False)
    if known is None:
        known = (_mentions({"code": code}, _REACH_WORDS), _mentions({"code": code}, _OPEN_WORDS))
        if len(_CODE_REACH) < 64:
            _CODE_REACH[code] = known
    if known[0]:
        return True, True
    for f in ("args", "expected_output"):
        text = req.get(f)
        if text and _EITHER_SEARCH(_searchable(text)):
            reach = _mentions(req, _REACH_WORDS)
            return reach, reach or _names_open(req)
    return False, known[1]


#: source text -> ``(spells a word of _REACH_WORDS, spells "open")`` (:func:`_reach_and_open`)
_CODE_REACH = {}
#: the search for a word of :data:`_REACH_WORDS` or :data:`_OPEN_WORDS` (compiled in the zygote)
_EITHER_SEARCH = re.compile("|".join(map(re.escape, _REACH_WORDS + _OPEN_WORDS))).search


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
        if cur.get(name, MISSING) is not m:
            return True
    for name, (m, space) in spaces.items():
        d = vars(m)
        if len(d) != len(space):
            return True
        for k, v in space.items():
            if d.get(k, MISSING) is not v:
                return True
    return False


_patch_cache = {}


def patches_loaded_objects(code):
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
    calls = False  # __import__(...) or importlib.import_module(...)
    for n in nodes:
        if isinstance(n, ast.Import):
            modules.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, ast.ImportFrom):
            members.update(a.asname or a.name for a in n.names)
        elif _imports_module(n):
            calls = True
    if not modules and not members and not calls:
        return False

    def root(t):
        """``(kind, attribute depth)`` of an attribute/subscript chain: kind ``"module"``,
        ``"member"`` or ``None`` (rooted at something else)."""
        depth, base = 0, t
        while isinstance(base, (ast.Attribute, ast.Subscript)):
            depth += isinstance(base, ast.Attribute)
            base = base.value
        if _imports_module(base) or isinstance(base, ast.Name) and base.id in modules:
            return "module", depth
        if isinstance(base, ast.Name) and base.id in members:
            return "member", depth
        return None, depth

    # names bound to a module or to something of one (``c = __import__('collections')``,
    # ``k = c.Counter``): the chain has no call but the import, so the name is the module's
    # own object, not a new one
    for _ in range(5):
        grew = False
        for n in nodes:
            if isinstance(n, ast.Assign):
                names, value = [t.id for t in n.targets if isinstance(t, ast.Name)], n.value
            elif isinstance(n, ast.NamedExpr):
                names, value = [n.target.id], n.value
            else:
                continue
            kind, depth = root(value)
            into = modules if kind == "module" and depth == 0 else members if kind else None
            for name in names if into is not None else ():
                if name not in into:
                    into.add(name)
                    grew = True
        if not grew:
            break

    def patched(t):
        kind, depth = root(t)
        return kind == "member" and depth >= 1 or kind == "module" and depth >= 2

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


#: words of a program whose runs are never ended at a cycle: output and input (state
#: outside the frame), identities and hashes of objects (they depend on memory addresses)
_CYCLE_WORDS = re.compile(r"\b(?:print|input|open|id|hash|object)\b").search
#: statements whose frames keep state beside their locals at a line event (an iterator, a
#: context manager, a handled exception, a match subject) or that define code
_CYCLE_BLOCKS = (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Try, getattr(ast, "TryStar", ast.Try), ast.Match,
                 ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def cycle_functions(code):
    """``{(name, first line): accumulators}`` of the module-level functions of the program
    ``code`` in which a budgeted run may be ended at a cycle
    (:meth:`~.tracer.Tracer.look_for_cycle`):
    functions without decorators, without ``for``, ``with``, ``try`` or ``match``
    statements, nested functions, lambdas or classes, whose every statement (of a compound
    statement: its header) is on one line -- a line event in such a function comes between
    statements, where nothing is on its value stack.  Empty when the program has a
    ``global`` or ``nonlocal`` statement, a class, an attribute assigned or deleted, a
    generator or coroutine, an ``is`` test that is not against ``None``, or spells
    ``print``, ``input``, ``open``, ``id``, ``hash`` or ``object`` (state that the frame's
    locals and the module's globals do not show); empty when it does not parse.  A
    function's accumulators (a frozenset of names: :func:`_accumulators`) are locals whose
    values nothing else reads."""
    if _CYCLE_WORDS(code):
        return {}
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.Global, ast.Nonlocal, ast.ClassDef, ast.AsyncFunctionDef, ast.Yield, ast.YieldFrom,
                          ast.Await)):
            return {}
        if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load):
            return {}
        if isinstance(n, ast.Compare):
            sides = [n.left] + n.comparators
            for k, op in enumerate(n.ops):
                if isinstance(op, (ast.Is, ast.IsNot)) and not any(
                        isinstance(x, ast.Constant) and x.value is None for x in sides[k:k + 2]):
                    return {}
    out = {}
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef) or fn.decorator_list:
            continue
        for n in ast.walk(fn):
            if n is not fn and isinstance(n, _CYCLE_BLOCKS):
                break
            if n is fn or not isinstance(n, ast.stmt):
                continue
            if isinstance(n, (ast.If, ast.While)):
                if not (n.test.lineno == n.test.end_lineno == n.lineno):
                    break
            elif n.lineno != n.end_lineno:
                break
        else:
            out[(fn.name, fn.lineno)] = _accumulators(fn)
    return out


def _accumulators(fn):
    """The locals of the function ``fn`` (an ``ast.FunctionDef``) that are read only by
    ``name += <expression>`` or ``name -= <expression>`` of themselves, where the expression
    reads no such local, and by ``return`` statements (an assignment of a number literal
    may set them): a cycle that changes only their values goes on for ever
    (:func:`~.tracer.state_key` compares their types only)."""
    loads, own = {}, {}
    for n in ast.walk(fn):
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and isinstance(n.op, (ast.Add, ast.Sub)):
            own.setdefault(n.target.id, []).append(n.value)
    if not own:
        return frozenset()
    returns = {id(x) for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value is not None
               for x in ast.walk(r.value)}
    targets = {id(n.target) for n in ast.walk(fn) if isinstance(n, ast.AugAssign)}
    literal_sets = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and isinstance(n.value, ast.Constant) and type(n.value.value) in (int, float):
            literal_sets.add(id(n.targets[0]))
    names = set(own)
    for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs + [fn.args.vararg, fn.args.kwarg]:
        if a is not None:
            names.discard(a.arg)  # a parameter's value comes from the call
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and n.id in names and id(n) not in returns and id(n) not in literal_sets \
                and not (id(n) in targets and n.id in own):
            names.discard(n.id)
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id in names \
                and not isinstance(n.op, (ast.Add, ast.Sub)):
            names.discard(n.target.id)
    # the added expressions read no accumulator
    for name in list(names):
        for value in own[name]:
            if any(isinstance(x, ast.Name) and x.id in names for x in ast.walk(value)):
                names.discard(name)
                break
    return frozenset(names)


def _imports_module(n):
    """Whether the AST node ``n`` is a call of ``__import__`` or ``import_module``."""
    if not isinstance(n, ast.Call):
        return False
    f = n.func
    return isinstance(f, ast.Name) and f.id in ("__import__", "import_module") \
        or isinstance(f, ast.Attribute) and f.attr in ("__import__", "import_module")


def _set_pdeathsig():
    """Ask Linux to SIGKILL the child when the zygote dies (prctl PR_SET_PDEATHSIG)."""
    if _prctl is None:
        return
    try:
        _prctl(1, _SIGKILL, 0, 0, 0)
    except Exception:
        pass


def _frame(kind, index=None, payload=b""):
    """A child -> zygote message: 4-byte length, a kind byte (``S`` sync, ``X`` restart,
    ``E`` end), a 4-byte request index for ``X``, the payload.  Results are
    :func:`_result_frame` s."""
    body = kind if index is None else kind + IDX.pack(index)
    return HDR.pack(len(body) + len(payload)) + body + payload


def _result_frame(bid, index, payload):
    """The outcome ``payload`` (JSON bytes) of request ``index`` of batch ``bid`` as the host
    reads it: 4-byte length, ``R``, the 4-byte batch id and request index, the payload (the
    zygote checks the batch id and index and forwards the frame as it is)."""
    return RESULT_HEAD.pack(len(payload) + 9, b"R", bid, index) + payload


def child_main(reqs, start, limits, wfd, ack_fd, close_fds, zygote_pid, mark, snapshot=None, workdir=None, bid=0):
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
        _signal.signal(_SIGXFSZ, _signal.SIG_IGN)
        _signal.signal(_SIGINT, _signal.default_int_handler)
        mem = limits["memory"]
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        fsize = limits["output"] + 4096
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        try:  # no new processes (enforced for non-root users; the guard below refuses fork too)
            resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
        except (ValueError, OSError):
            pass
        guard = _GUARD
        if workdir is None or guard is None:  # not prepared by a zygote (Zygote.prepare_children)
            workdir = os.getcwd()
            os.environ["TMPDIR"] = workdir  # tempfile works, inside the allowed directory
            guard = prepared_guard(workdir, STATE, _sync_current_child, zygote_pid, _mark_self_kill)
        child = _Child(limits, wfd, ack_fd, cap, workdir, mark, snapshot)
        _CURRENT[:] = [child]
        # open(fd) of these is refused to programs (the guard): a frame a program wrote to the
        # result pipe would be taken for an outcome
        STATE.protocol_fds = frozenset((wfd, ack_fd, cap, child.cwd_fd, child.null_fd))
        modules = child.modules
        # the namespaces are copied only before the first request that could reach a module
        # (none before it could change them)
        spaces = None
        guard()
        tainted = False
        for i in range(start, len(reqs)):
            req = reqs[i]
            reach, may_write = _reach_and_open(req)
            if reach and spaces is None:
                spaces = _module_spaces()
            if reach and not child.reached:
                child.reached = True
                programs_may_signal()  # the program may replace the timers' handler, or signal itself
            try:
                out = child.run(i, req, may_write, reach)
            except MemoryError:
                out = {"status": "memory", "exception": {"type": "MemoryError", "message": "", "line": None},
                       "note": "memory exhausted in the sandbox harness"}
            # modules the program imported are dropped (the next import runs them afresh);
            # a changed module loaded before means a fresh child for the next request
            # (a request that cannot reach sys.modules can only add to it: compare sizes first)
            sys.modules.pop(MODULE_NAME, None)  # the program's module (Child.run adds it)
            if reach or len(sys.modules) != len(modules):
                for name in [n for n in sys.modules if n not in modules]:
                    del sys.modules[name]
            tainted = (reach and (_modules_changed((modules, spaces)) or patches_loaded_objects(req.get("code") or ""))) \
                or _thread_count() > 0  # threads left running
            try:
                payload = encode_outcome(out)
            except BaseException as exc:  # e.g. a fingerprint JSON cannot encode
                payload = encode_outcome({"status": "crashed", "note": f"result not encodable: {exc!r}"[:500]})
            # no acknowledgement is awaited: the outcome sits in the pipe even if this child
            # dies next; only a program that signals the zygote could lose it, and the
            # guard syncs with the zygote first (Child.sync)
            write_all(wfd, _result_frame(bid, i, payload))
            if not tainted and i + 1 < len(reqs) and may_write:
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
