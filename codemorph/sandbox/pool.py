"""Execution sandbox: runs untrusted benchmark programs in reusable worker processes.

Programs never run in the host process. A :class:`Sandbox` keeps ``workers`` long-lived
worker ("zygote") processes, each started once as ``python -s codemorph/sandbox/_worker.py``
(standard library only, so it starts fast) with ``PYTHONHASHSEED`` fixed and a fresh
temporary directory as working directory. For every batch the zygote forks one child that
runs the batch's requests one after another, each in fresh globals, under a wall-clock
timer (``setitimer``), an address-space limit (``RLIMIT_AS``), no core dumps, a bounded
output capture and fds 0/1/2 redirected away from the protocol pipes. A child that dies or
ignores its timer is killed by the zygote and replaced for the rest of the batch; a zygote
that dies is replaced by the host, which removes the zygote's directory (as it does on
:meth:`Sandbox.close` and at exit; a host killed by ``SIGKILL`` cannot, and the next
sandbox started on the machine removes what it left: :func:`remove_stale_dirs`). So a hang,
crash, ``sys.exit``, ``os._exit``, infinite recursion or memory blow-up in one program
never stops a run, and a program that monkeypatches builtins never affects another batch
(builtins are also restored between the requests of a batch, and so is the process state a
program may change: files in the working directory, ``os.environ``, umask, the garbage
collector's settings, ``warnings`` filters, the int-to-str digit limit, ``sys`` attributes
and hooks; a program that changes state the child cannot restore, such as a registered
codec search function or a signal handler, gets a fresh child for the next request).

Note: ``python -I`` would make the interpreter ignore ``PYTHONHASHSEED``; the worker is
therefore started with ``-s`` and an environment scrubbed of every other ``PYTHON*``
variable, and it removes its own directory from ``sys.path``.

Containment of hostile code (tests/sandbox/test_hostile.py): the forked child also sets
``RLIMIT_NPROC=0`` and installs a :pep:`578` audit hook that refuses, with
``PermissionError``, starting processes (``os.system``, ``subprocess``, ``fork``, ``exec``),
threads, any socket (connections and DNS lookups), ``ctypes`` calls, raising resource
limits, signals to processes other than itself and its zygote, and writing, creating,
deleting or renaming files outside the batch's temporary directory.  An execution in which
the guard refused anything has status ``"refused"`` (never ``raised PermissionError``, nor
what the program did after catching it): a plain interpreter would not have refused, so the
outcome is no ground truth and is never compared.  A program that
replaces entries of ``sys.modules``, rebinds names in modules loaded before it, or leaves
threads running gets a fresh child for the next request; modules it imported are dropped.
This contains ordinary hostile or buggy programs; it is not a boundary against code written
to defeat codemorph in particular (e.g. by editing the hook's closure through ``gc``):
reading files, CPU and memory up to the limits remain available to the program.  Run
untrusted corpora in a container or VM without network access as well.
"""

from __future__ import annotations

import ast
import fcntl
import itertools
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Iterator, Sequence

__all__ = ["Limits", "ExecRequest", "ExceptionInfo", "Outcome", "Sandbox", "STATUSES", "can_outlive_timer",
           "COMPLETED_STATUSES", "WORKER_PATH", "DIR_PREFIX", "remove_stale_dirs"]

#: Every value :attr:`Outcome.status` can take.
STATUSES = ("returned", "raised", "timeout", "memory", "crashed", "bad-input", "bad-code", "output-limit",
            "refused", "environment")
#: Statuses where the program ran to a deterministic end (its behaviour can be compared).
COMPLETED_STATUSES = frozenset({"returned", "raised", "bad-input", "bad-code"})

#: Path of the worker script run by each worker process.
WORKER_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_worker.py")

#: Name prefix of each worker's working directory (made in :func:`tempfile.gettempdir`).
DIR_PREFIX = "codemorph-sandbox-"
#: Seconds since its last change before :func:`remove_stale_dirs` looks at a directory.
STALE_AFTER = 60.0

try:  # a declared dependency; without it, the standard library's decoder does the same work
    import msgspec.json as _msgspec_json
except ImportError:  # pragma: no cover
    _msgspec_json = None

_HDR = struct.Struct(">I")
_IDX2 = struct.Struct(">II")
_MAX_MSG = 1 << 30
#: what ``json.dumps(obj, ensure_ascii=True, separators=(",", ":"))`` makes, without an
#: encoder made per message
_encode_json = json.JSONEncoder(ensure_ascii=True, separators=(",", ":")).encode


@dataclass(frozen=True)
class Limits:
    """Resource limits of one execution.

    Attributes:
        timeout: wall-clock seconds for running one request (module body + call); the
            result's repr/fingerprints get another ``timeout`` seconds.
        memory: bytes; ``RLIMIT_AS`` of the process running the program.
        output: bytes of stdout+stderr kept per execution; a program that writes more is
            stopped with status ``"output-limit"`` (the first ``output`` bytes are kept and
            ``Outcome.output_truncated`` is set).
        recursion_limit: ``sys.setrecursionlimit`` inside the sandbox (the independent
            CRUXEval checker uses 10000).
        grace: seconds a process may stay silent past ``timeout`` (e.g. a program that
            installed its own SIGALRM handler, or sits in C code) before it is SIGKILLed.
        repr_limit: characters; a longer ``repr`` of the result is not kept
            (``value_repr`` is ``None`` and ``repr_error`` says why).
    """

    timeout: float = 5.0
    memory: int = 2 * 1024**3
    output: int = 1 << 20
    recursion_limit: int = 10000
    grace: float = 1.0
    repr_limit: int = 1 << 20

    def to_wire(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, init=False)
class ExecRequest:
    """One execution of a program.

    Attributes:
        code: the module's source text.
        entry_point: the function to call (``"f"`` in CRUXEval).
        args: argument-list literal such as ``"'abc', [1, 2]"``; the call is
            ``eval(f"{entry_point}({args})")`` in the module's globals, as CRUXEval's
            harness does.  ``None`` means script mode: only run the module (used to score
            ``code + "\\nassert OUT == PRED"``); the status is ``returned`` or ``raised``.
        expected_output: when given (call mode), the sandbox evaluates
            ``value == eval(expected_output)`` in the module's globals (CRUXEval's
            assertion) and reports :attr:`Outcome.output_matches`.
        trace: collect executed lines and arcs of the module and (with ``types``) the types
            of locals.
        types: with ``trace``, also collect the types of locals (a set update per line
            event: over half of the cost of a traced run on CRUXEval); ``False`` collects
            lines and arcs only (:attr:`Outcome.types` is then empty).
        timeout: wall-clock seconds for this execution, overriding ``Limits.timeout``
            (``None``: the sandbox's limit).
        cpu_timeout: CPU seconds (user + system, ``ITIMER_PROF``) the program may use before
            it is stopped with status ``"timeout"``, on top of the wall-clock limit; unlike
            wall-clock time it does not grow with the machine's load (``None``: no CPU limit).
        max_lines: with ``trace``, a budget of executed lines (line events of the program's
            own code); the program is stopped with status ``"timeout"`` (and a note) at the
            next line past it.  A deterministic limit: the same program and input stop at
            the same point on any machine and at any load (``None``: no budget).
        recursion_limit: frames, overriding ``Limits.recursion_limit`` for this execution,
            counted as in a plain ``python program.py`` run (the module's frame is the first;
            the worker's own frames below it are added), so ``1000`` gives the program the
            stack of CPython's default limit (``None``: the sandbox's limit, which counts the
            worker's frames too).
        counts: with ``trace``, also count the line events per line of the program and the
            deepest nesting of its function frames during the call of the entry point (not
            the module body): :attr:`Outcome.line_counts` and :attr:`Outcome.max_call_depth`
            (types of locals are then not collected).  Used by ``codemorph analyze``.
        input_kind: how the program is run (:data:`~codemorph.rows.INPUT_KINDS`):
            ``"args"`` (default) calls ``entry_point(<args>)`` as above; ``"call"``
            evaluates ``args``, a whole expression (``has_close_elements([1.0], 0.3)``,
            ``Test().test()``), in the module's globals after its code ran; ``args`` may
            also be statements followed by that expression, on several lines (they run
            first, in the same globals: how a harness method with other literals is put in
            place); ``entry_point`` is not used; ``"stdin"`` runs the module as
            ``__main__`` (``__name__ == "__main__"``) with :attr:`stdin` as its standard
            input (``input()``, ``sys.stdin``, ``sys.stdin.buffer``); the outcome's value is
            the text it wrote to standard output (:attr:`Outcome.stdout`, without standard
            error, which goes to :attr:`Outcome.stderr`), ``SystemExit`` with code ``0`` or
            ``None`` ends it normally, and ``expected_output`` is compared as verbatim text;
            ``entry_point`` and ``args`` are not used.  The module body of a ``"call"`` or
            ``"args"`` request that raises is ``bad-code``; of a ``"stdin"`` request it is
            the program's own outcome, ``raised``.
        stdin: the standard input of a ``"stdin"`` request (text; ``None`` is empty input).
        python_tracer: with ``trace``, collect lines and arcs with the Python trace function
            even where coverage.py's C tracer would do (the same lines; see
            ``codemorph/sandbox/_workerlib/tracer.py``): for comparisons and benchmarks; with
            ``types``, also collect the types of locals on every line event of the whole run
            (without it a run past 20,000 line events hands over to the C tracer and its
            types are a sample, :attr:`Outcome.types_partial`).

    A traced request without ``max_lines`` or ``counts`` is never stopped by tracing: when its time
    limit (``timeout``, or ``cpu_timeout``) passes while the program is still traced,
    tracing stops, the limit starts again for the untraced rest and the outcome has
    :attr:`Outcome.coverage_partial` (see "Time limits and tracing" in the README).
    """

    code: str
    entry_point: str = "f"
    args: str | None = ""
    expected_output: str | None = None
    trace: bool = False
    timeout: float | None = None
    cpu_timeout: float | None = None
    max_lines: int | None = None
    types: bool = True
    recursion_limit: int | None = None
    counts: bool = False
    input_kind: str = "args"
    stdin: str | None = None
    python_tracer: bool = False

    def __init__(self, code: str, entry_point: str = "f", args: str | None = "", expected_output: str | None = None,
                 trace: bool = False, timeout: float | None = None, cpu_timeout: float | None = None,
                 max_lines: int | None = None, types: bool = True, recursion_limit: int | None = None,
                 counts: bool = False, input_kind: str = "args", stdin: str | None = None,
                 python_tracer: bool = False) -> None:
        # the dataclass's own __init__ of a frozen class sets each of the 14 fields with
        # object.__setattr__ (3 us a request; a run makes tens of thousands): the same
        # fields, in order, set at once (tests/sandbox/test_request_fields.py keeps this
        # signature equal to the fields)
        self.__dict__.update(code=code, entry_point=entry_point, args=args, expected_output=expected_output,
                             trace=trace, timeout=timeout, cpu_timeout=cpu_timeout, max_lines=max_lines,
                             types=types, recursion_limit=recursion_limit, counts=counts, input_kind=input_kind,
                             stdin=stdin, python_tracer=python_tracer)

    def to_wire(self) -> dict:
        d = {"code": self.code, "entry_point": self.entry_point, "args": self.args,
             "expected_output": self.expected_output, "trace": self.trace}
        if self.input_kind != "args":
            if self.input_kind not in ("call", "stdin"):
                raise ValueError(f"input_kind must be one of args, call, stdin, got {self.input_kind!r}")
            if self.input_kind == "call" and not isinstance(self.args, str):
                raise ValueError("a call request needs the expression in args")
            d["input_kind"] = self.input_kind
            if self.input_kind == "stdin":
                d["stdin"] = self.stdin or ""
        if self.trace and not self.types:
            d["types"] = False
        if self.trace and self.counts:
            d["counts"] = True
        if self.trace and self.python_tracer:
            d["python_tracer"] = True
        if self.timeout is not None:
            if not self.timeout > 0:
                raise ValueError(f"timeout must be > 0 seconds, got {self.timeout!r}")
            d["timeout"] = float(self.timeout)
        if self.cpu_timeout is not None:
            if not self.cpu_timeout > 0:
                raise ValueError(f"cpu_timeout must be > 0 seconds, got {self.cpu_timeout!r}")
            d["cpu_timeout"] = float(self.cpu_timeout)
        if self.max_lines is not None:
            if not (isinstance(self.max_lines, int) and self.max_lines > 0):
                raise ValueError(f"max_lines must be a positive int, got {self.max_lines!r}")
            d["max_lines"] = self.max_lines
        if self.recursion_limit is not None:
            if not (isinstance(self.recursion_limit, int) and self.recursion_limit >= 50):
                raise ValueError(f"recursion_limit must be an int >= 50, got {self.recursion_limit!r}")
            d["recursion_limit"] = self.recursion_limit
        return d


@dataclass(frozen=True)
class ExceptionInfo:
    """An exception the program raised.

    Attributes:
        type: the class's ``__name__``, e.g. ``"IndexError"``.
        message: ``str(exc)``, truncated to 500 characters.
        line: line in the module source where it was raised (innermost frame of the
            program), or ``None``.
    """

    type: str
    message: str
    line: int | None = None


@dataclass(frozen=True)
class Outcome:
    """What one execution did.

    Attributes:
        status: one of :data:`STATUSES`: ``returned``; ``raised`` (SystemExit and
            KeyboardInterrupt raised by the program count too); ``timeout``; ``memory``
            (MemoryError, or the process was SIGKILLed, e.g. by the OOM killer);
            ``crashed`` (the process died: ``os._exit``, a segfault, a dead worker);
            ``bad-input`` (the argument literal does not evaluate); ``bad-code`` (the
            module does not compile, its body raised, or it lacks the entry point);
            ``output-limit`` (more than ``Limits.output`` bytes written); ``refused``
            (the sandbox's guard refused something the program asked for -- a socket, a
            process, a thread, ctypes, a file change outside its temporary directory, ... --
            so whatever it did next, e.g. catch the ``PermissionError`` and return, is an
            artifact of the sandbox: ``note`` names the first refusal, e.g. ``"the sandbox
            refused network access (socket.__new__); the program then raised
            PermissionError"``, and result and exception are not kept); ``environment``
            (the output or the exception message shows the sandbox's own module name
            ``__codemorph_program__`` or file name ``<program>``, e.g. a warning printed
            with its file name, or ``can't pickle <class '__codemorph_program__.C'>``:
            another harness shows its own, so the outcome is no ground truth; ``note`` says
            which, result and exception are not kept; a returned value whose repr shows
            them, such as ``str(C)`` of a class the program defined, keeps status
            ``returned`` and its fingerprint but loses its repr: ``repr_error`` says why).  A MemoryError raised during the run makes
            the status ``memory`` even when the program caught it (seen by a trace function of
            a program with a handler that could catch it: the Python tracer of its traced runs,
            an exception-only tracer of its untraced runs), as the limit is the
            sandbox's.  Only ``returned``,
            ``raised``, ``bad-input`` and ``bad-code`` are :data:`COMPLETED_STATUSES`: the
            others are never compared nor written as a ground truth.
        value_repr: ``repr(result)`` when returned; ``None`` when repr raised, timed out
            or was too long (``repr_error`` says which).
        fingerprint: canonical JSON-able encoding of the result: type-exact, NaN equal to
            NaN, ``-0.0`` equal to ``0.0``, set order ignored, dict order kept, cycles
            handled, objects by their attributes, huge values summarised by SHA-256 (the
            full rules are in ``codemorph/sandbox/_workerlib/fingerprint.py``); ``None`` unless returned.
        literal_ok: ``eval(repr(value)) == value`` (same type), checked in the sandbox, so
            an ``output`` row round-trips.
        exception: the exception, for raised / bad-code / bad-input.
        args_fingerprint: fingerprint of ``[positional args, keyword args]`` after the
            call (catches in-place mutation); ``None`` when the call did not happen.
        stdout: captured stdout and stderr (text, including ``os.write(1, ...)`` bytes,
            decoded as UTF-8), at most ``Limits.output`` bytes; for a ``"stdin"`` request
            standard output only (the row's output).
        stderr: a ``"stdin"`` request's standard error (``sys.stderr``), else ``""``.
        output_matches: result of the ``expected_output`` check, ``None`` if not asked.
        compare_error: when that check's comparison (``value == expected``, and its
            ``bool``) raised: ``"ExceptionClass: message"`` (at most 500 characters), and
            ``output_matches`` is ``False``; else ``None``.
        duration: seconds the execution took (module body + call).
        lines, arcs, types: trace results (``trace=True``), else ``None``: sorted executed
            line numbers of the module; executed ``(from_line, to_line)`` pairs of
            consecutive lines within one frame of module code; ``{function qualname:
            {local name: sorted type names seen}}``.
        output_truncated: the output was longer than ``Limits.output``.
        repr_error: why ``value_repr`` is ``None`` although the status is ``returned``.
        note: a human-readable detail (why a process was killed, a post-processing failure).
        incomplete: fingerprinting or checking the result timed out or failed, so some of
            ``fingerprint``, ``args_fingerprint``, ``literal_ok``, ``output_matches`` may be
            missing (the outcome is then not :attr:`comparable`).
        line_counts: with ``ExecRequest(trace=True, counts=True)``, sorted ``(line, line
            events)`` pairs of the program's frames during the call of the entry point; else
            ``None``.
        max_call_depth: with ``counts``, the deepest nesting of the program's function frames
            during the call (the entry function is depth 1; comprehensions, generator
            expressions and the module body do not count); else ``None``.
        coverage_partial: a traced run whose tracing stopped before the program ended (its
            time limit passed while it was traced; the program ran on untraced and
            :attr:`status` is its own outcome): ``lines``, ``arcs`` and ``types`` are what
            ran before, a lower bound.
        types_partial: a run traced with types of locals that went on past the first
            20,000 line events (``TYPES_SAMPLE_LINES`` of the worker): :attr:`types` are the
            types seen in those events (a bounded sample), while coverage.py's C tracer
            recorded the lines and arcs of the rest (exact), see "Time limits and tracing"
            in the README.
    """

    status: str
    value_repr: str | None = None
    fingerprint: Any = None
    literal_ok: bool = False
    exception: ExceptionInfo | None = None
    args_fingerprint: Any = None
    stdout: str = ""
    output_matches: bool | None = None
    duration: float = 0.0
    lines: tuple[int, ...] | None = None
    arcs: tuple[tuple[int, int], ...] | None = None
    types: dict[str, dict[str, list[str]]] | None = None
    output_truncated: bool = False
    repr_error: str | None = None
    note: str | None = None
    incomplete: bool = False
    line_counts: tuple[tuple[int, int], ...] | None = None
    max_call_depth: int | None = None
    stderr: str = ""
    coverage_partial: bool = False
    types_partial: bool = False
    compare_error: str | None = None

    def behaviour(self) -> tuple:
        """What differential testing compares: ``(status, fingerprint or exception type,
        args_fingerprint, stdout)``."""
        if self.status == "returned":
            what = self.fingerprint
        elif self.exception is not None:
            what = self.exception.type
        else:
            what = None
        return (self.status, what, self.args_fingerprint, self.stdout)

    def value_words(self, limit: int | None = 80) -> str:
        """The returned value, for a message: its ``repr`` cut to ``limit`` characters
        (``None``: not cut), or,
        when no repr was kept (:attr:`repr_error`), what happened to it: ``"a value whose repr
        raised ValueError (Exceeds the limit (4300 digits) ...)"`` (an int over 4,300 digits),
        ``"a value whose repr timed out"``, ``"a value whose repr is 2000000 characters, over
        the limit"``.  Meant after ``"returned "``; ``""`` unless :attr:`status` is
        ``"returned"``."""
        if self.status != "returned":
            return ""
        def cut(text: str) -> str:
            return text if limit is None or len(text) <= limit else text[:max(0, limit - 3)] + "..."

        if self.value_repr is not None:
            return cut(self.value_repr)
        err = self.repr_error or ""
        if err.startswith("repr "):  # "repr timed out", "repr is N characters, over the limit"
            return f"a value whose {err}"
        cls, _, message = err.partition(":")
        if cls.isidentifier():  # "ValueError: message" or "ValueError": the repr raised
            message = message.strip()
            return f"a value whose repr raised {cls}" + (f" ({cut(message)})" if message else "")
        return "a value whose repr is unavailable" + (f" ({cut(err)})" if err else "")

    @property
    def completed(self) -> bool:
        """Whether the program ran to a deterministic end (not timeout/memory/crash/output-limit/refused)."""
        return self.status in COMPLETED_STATUSES

    @property
    def worker_lost(self) -> bool:
        """Whether the request was not completed because its sandbox worker (zygote) ended
        (``crashed``, note ``"sandbox worker lost (...)"``): killed from outside twice, once
        on the batch's first run and once on its run again, or by a program that kills its
        zygote -- not an outcome of the program's run."""
        return self.status == "crashed" and (self.note or "").startswith(WORKER_LOST)

    @property
    def comparable(self) -> bool:
        """Whether :meth:`behaviour` fully describes the execution (completed, and the
        result was fingerprinted when it returned)."""
        if not self.completed or self.incomplete:
            return False
        if self.status == "returned" and (self.fingerprint is None or _too_large(self.fingerprint)):
            return False
        if self.status in ("returned", "raised") and self.args_fingerprint is not None \
                and _too_large(self.args_fingerprint):
            return False
        return True

    @classmethod
    def from_wire(cls, d: dict) -> "Outcome":
        """Build an outcome from the worker's JSON dict (unknown keys ignored; a missing key
        is the field's default)."""
        get = d.get
        exc = get("exception")
        lines = get("lines")
        arcs = get("arcs")
        status = get("status")
        known = status in STATUSES
        line_counts = get("line_counts")
        depth = get("max_call_depth")
        # built without the frozen dataclass's __init__ (one object.__setattr__ per field):
        # the host decodes tens of thousands of outcomes per run; the same fields, in order
        o = object.__new__(cls)
        o.__dict__.update(
            status=status if known else "crashed",
            value_repr=get("value_repr"),
            fingerprint=get("fingerprint"),
            literal_ok=bool(get("literal_ok", False)),
            exception=ExceptionInfo(str(exc.get("type")), str(exc.get("message", "")), exc.get("line"))
            if isinstance(exc, dict) else None,
            args_fingerprint=get("args_fingerprint"),
            stdout=get("stdout") or "",
            output_matches=get("output_matches"),
            duration=float(get("duration") or 0.0),
            lines=tuple(lines) if lines is not None else None,
            arcs=tuple(map(tuple, arcs)) if arcs is not None else None,
            types=get("types"),
            output_truncated=bool(get("output_truncated", False)),
            repr_error=get("repr_error"),
            note=get("note") if known else f"unknown status {status!r}",
            incomplete=bool(get("incomplete", False)),
            line_counts=tuple((int(a), int(b)) for a, b in line_counts) if line_counts is not None else None,
            max_call_depth=int(depth) if depth is not None else None,
            stderr=get("stderr") or "",
            coverage_partial=bool(get("coverage_partial", False)),
            types_partial=bool(get("types_partial", False)),
            compare_error=get("compare_error"),
        )
        return o


def can_outlive_timer(source: str) -> bool:
    """Whether a program may keep running after the sandbox's time limit was raised in it
    (the worker's timeout is a ``BaseException``, so ``except Exception`` misses it): it
    has a bare ``except:``, names ``BaseException``, has a ``finally`` block, or defines
    ``__del__``/``__exit__``/``__aexit__`` (code that runs while the timeout unwinds).  Such
    a run ends only when the zygote's watchdog kills it, at the limit plus the grace.
    Conservative: a source that does not parse counts as one that may.  Text without
    ``except``, ``BaseException``, ``finally`` or ``__`` is not parsed."""
    if "except" not in source and "finally" not in source and "__" not in source \
            and "BaseException" not in source:
        return False
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is None:
            return True
        if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))) and node.finalbody:
            return True
        if isinstance(node, ast.Name) and node.id == "BaseException":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "BaseException":
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in ("__del__", "__exit__",
                                                                                         "__aexit__"):
            return True
    return False


def _wire_requests(requests: Sequence[ExecRequest]) -> list[dict]:
    """The requests of a batch as sent to the zygote.  A batch usually runs one or two
    programs on many inputs: each distinct source text is sent once, the later requests
    that run it carry ``{"code_ref": index of the first}`` instead of ``"code"``."""
    first: dict[str, int] = {}
    out = []
    for i, r in enumerate(requests):
        d = r.to_wire()
        k = first.setdefault(r.code, i)
        if k != i:
            del d["code"]
            d["code_ref"] = k
        out.append(d)
    return out


def _json_decoder():
    """``json.loads`` of an outcome's bytes, through msgspec's JSON decoder (~2.7x faster on
    the child's outcomes) where it gives the same value: any bytes msgspec refuses -- or takes
    to a value ``json.loads`` may read otherwise -- go to ``json.loads``, which then returns
    or raises as it always did.  msgspec reads exactly what ``json.loads`` reads (same
    types, integers of any size exact, duplicate keys: the last value at the first key's
    place) except what it refuses: ``NaN``/``Infinity`` (the child's encoder may write them),
    numbers out of the float range (``1e400``, ``inf`` for ``json.loads``), integers over the
    interpreter's digit limit, lone surrogates, a UTF-8 byte-order mark, nesting deeper than
    its limit.  tests/sandbox/test_outcome_decoding.py holds these cases."""
    if _msgspec_json is None:  # pragma: no cover
        return json.loads
    fast = _msgspec_json.Decoder().decode
    slow = json.loads

    def loads(raw: bytes) -> Any:
        try:
            return fast(raw)
        except Exception:  # noqa: BLE001 - refused (or too deep): the standard decoder decides
            return slow(raw)

    return loads


#: ``json.loads`` for an outcome relayed from the child (same values, same errors).
_loads_outcome = _json_decoder()


def _too_large(fp: Any) -> bool:
    return isinstance(fp, list) and len(fp) == 2 and fp[0] == "too-large"


#: how the note of an outcome lost with its worker begins (:attr:`Outcome.worker_lost`)
WORKER_LOST = "sandbox worker lost"


def _crashed(note: str) -> Outcome:
    return Outcome(status="crashed", note=note)


class _WorkerDied(Exception):
    """The host lost a worker.  ``exited`` is True when the worker process itself ended
    (end of its pipe, a write to it refused), False when it is alive but misbehaved
    (silence, a corrupt or unexpected message)."""

    def __init__(self, message: str, exited: bool = False) -> None:
        super().__init__(message)
        self.exited = exited


# -- the workers' directories ------------------------------------------------------------
def _hold_dir(path: str) -> int:
    """Open the directory ``path`` and take an exclusive ``flock`` on it, the sign that a
    live host uses it; returns the descriptor (close-on-exec: the zygote does not inherit
    it).  The lock ends when the descriptor is closed, also by the kernel when the host is
    killed."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise
    return fd


def _cwds_in_use() -> list[str] | None:
    """Working directories of the processes visible in ``/proc`` (``None`` without ``/proc``)."""
    try:
        pids = [n for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return None
    out = []
    for pid in pids:
        try:
            out.append(os.readlink(f"/proc/{pid}/cwd"))
        except OSError:  # gone, or another user's process
            continue
    return out


def remove_stale_dirs(tempdir: str | None = None, min_age: float = STALE_AFTER) -> list[str]:
    """Remove the working directories that sandbox workers of dead hosts left behind.

    A host (the process holding a :class:`Sandbox`) holds an exclusive ``flock`` on each of
    its workers' directories as long as it lives, and removes a directory itself when it
    stops the worker (:meth:`Sandbox.close`, a worker that died or was replaced, interpreter
    exit).  A host killed by ``SIGKILL`` (``kill -9``, the OOM killer, a pool worker ending
    with its parent) cannot: its zygote ends when its pipe closes, and the directory stays.
    Such a directory is removed here when all of these hold:

    * its name starts with :data:`DIR_PREFIX`; it is a directory (not a symlink) owned by
      this user, in ``tempdir``;
    * it last changed ``min_age`` seconds ago or earlier (a host takes its lock just after
      creating the directory);
    * nobody holds its lock;
    * no process visible in ``/proc`` has its working directory in it (the zygote of a host
      that took no lock: a codemorph before this check, or a host that is gone while its
      zygote still finishes a batch).  Without ``/proc`` nothing is removed.

    Every :class:`Sandbox` calls it (at most once a minute per process) before it starts a
    worker, so a killed run's directories go with the next run on the machine.

    Args:
        tempdir: the directory to look in (default: :func:`tempfile.gettempdir`).
        min_age: seconds, see above.

    Returns:
        The paths removed.
    """
    root = tempdir or tempfile.gettempdir()
    now = time.time()
    held: list[tuple[str, int]] = []
    try:
        try:
            entries = list(os.scandir(root))
        except OSError:
            return []
        for e in entries:
            if not e.name.startswith(DIR_PREFIX):
                continue
            try:
                st = e.stat(follow_symlinks=False)
                if not e.is_dir(follow_symlinks=False) or st.st_uid != os.getuid() or now - st.st_mtime < min_age:
                    continue
                held.append((e.path, _hold_dir(e.path)))
            except OSError:  # locked by a live host, gone, or not ours
                continue
        if not held:
            return []
        cwds = _cwds_in_use()
        if cwds is None:
            return []
        removed = []
        for path, _fd in held:
            if any(c == path or c.startswith(path + os.sep) for c in cwds):
                continue
            shutil.rmtree(path, ignore_errors=True)
            if not os.path.lexists(path):
                removed.append(path)
        return removed
    finally:
        for _path, fd in held:
            os.close(fd)


_sweep_lock = threading.Lock()
_last_sweep = [float("-inf")]  # time.monotonic() of this process's last remove_stale_dirs


def _sweep_now_and_then() -> None:
    """:func:`remove_stale_dirs`, at most once per :data:`STALE_AFTER` seconds per process;
    never raises (a failed sweep must not stop a run)."""
    if not _sweep_lock.acquire(blocking=False):
        return  # another thread of this process is sweeping
    try:
        if time.monotonic() - _last_sweep[0] < STALE_AFTER:
            return
        _last_sweep[0] = time.monotonic()
        remove_stale_dirs()
    except Exception:  # noqa: BLE001 - best effort
        pass
    finally:
        _sweep_lock.release()


class _Worker:
    """One zygote process and its pipes (host side)."""

    _ids = itertools.count(1)

    def __init__(self, hash_seed: int, python: str) -> None:
        self.hash_seed = hash_seed
        _sweep_now_and_then()
        # the zygote's working directory: removed by kill(); held (flock) while this process
        # lives, so that remove_stale_dirs() can tell it from one a killed host left behind
        self.tmp = tempfile.mkdtemp(prefix=DIR_PREFIX)
        self.dir_fd: int | None = None
        try:
            self.dir_fd = _hold_dir(self.tmp)
            env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
            env["PYTHONHASHSEED"] = str(hash_seed)
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            env.setdefault("LC_ALL", "C.UTF-8")
            env["PYTHONIOENCODING"] = "utf-8"
            self.proc = subprocess.Popen(
                [python, "-s", WORKER_PATH], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, cwd=self.tmp, env=env, start_new_session=True, bufsize=0,
                close_fds=True)
        except BaseException:  # e.g. no such interpreter: the directory must not stay behind
            self._remove_dir()
            raise
        self.rfd = self.proc.stdout.fileno()
        self.wfd = self.proc.stdin.fileno()
        self.buf = bytearray()
        self.pos = 0  # start of the first message not yet returned by recv() in self.buf
        self.batch_ids = itertools.count(1)
        #: the last batch's Limits (frozen) and their wire dict, made once for a run's batches
        self.limits_wire: tuple[Limits | None, dict] = (None, {})
        #: the largest peak resident set size (KiB) of the children the zygote forked to run
        #: programs, as of its last finished batch
        self.peak_rss_kib = 0
        #: set by run_batch: the batch was cut short because the worker process itself
        #: ended (not by this host), not because a program's child died
        self.exited = False
        hello = self.recv(30.0)
        if not isinstance(hello, dict) or hello.get("t") != "ready":
            self.kill()
            raise RuntimeError(f"sandbox worker did not start: {hello!r}")

    def send(self, obj: Any) -> None:
        data = _encode_json(obj).encode("ascii")
        msg = _HDR.pack(len(data)) + data
        try:
            view = memoryview(msg)
            while view:
                n = os.write(self.wfd, view)
                view = view[n:]
        except OSError as exc:
            raise _WorkerDied(f"cannot write to worker: {exc}", exited=True) from None

    def recv(self, timeout: float) -> Any:
        """Next message; raises ``_WorkerDied`` on EOF, corrupt data or ``timeout`` seconds of silence."""
        deadline = None
        buf = self.buf
        while True:
            # messages are read at an offset (self.pos); the consumed bytes are removed when
            # the next chunk comes, not one message at a time (which moved the rest of a
            # large read for every outcome in it)
            pos = self.pos
            if len(buf) - pos >= 4:
                (n,) = _HDR.unpack_from(buf, pos)
                if n > _MAX_MSG:
                    raise _WorkerDied("corrupt message from worker")
                end = pos + 4 + n
                if len(buf) >= end:
                    self.pos = end
                    if n >= 9 and buf[pos + 4] == 82:  # b"R"
                        # an outcome relayed verbatim from the child: R, batch id, index, JSON
                        bid, i = _IDX2.unpack_from(buf, pos + 5)
                        return {"t": "result", "b": bid, "i": i, "raw": bytes(buf[pos + 13:end])}
                    try:
                        return json.loads(bytes(buf[pos + 4:end]))
                    except ValueError:
                        raise _WorkerDied("corrupt message from worker") from None
            if deadline is None:
                deadline = time.monotonic() + timeout
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _WorkerDied(f"worker silent for {timeout:.3g}s")
            ready, _, _ = select.select([self.rfd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self.rfd, 1 << 20)
            if not chunk:
                raise _WorkerDied("worker process died", exited=True)
            if self.pos:
                del buf[:self.pos]
                self.pos = 0
            buf += chunk

    def run_batch(self, requests: Sequence[ExecRequest], limits: Limits) -> tuple[list[Outcome], bool]:
        """Run a batch; returns (outcomes, worker_still_usable).  When the worker is lost
        the unfinished requests are ``crashed`` outcomes and :attr:`exited` tells whether
        the worker process had ended by itself."""
        bid = next(self.batch_ids)
        results: list[Outcome | None] = [None] * len(requests)
        # the zygote reports each request within timeout+grace of the previous event,
        # twice over (run + post-processing); allow the same again before giving up on it
        longest = max([limits.timeout] + [r.timeout for r in requests if r.timeout is not None])
        # the zygote notices a stalled step only when its deadline passes, so a step may take
        # up to two budgets (three steps: run, repr, fingerprints) before it reports
        silence = 7 * (longest + limits.grace) + 10.0
        try:
            known, wire = self.limits_wire
            if known is not limits:
                wire = limits.to_wire()
                self.limits_wire = (limits, wire)
            self.send({"op": "batch", "b": bid, "limits": wire, "requests": _wire_requests(requests)})
            while True:
                msg = self.recv(silence)
                if not isinstance(msg, dict) or msg.get("b") != bid:
                    raise _WorkerDied(f"unexpected message from worker: {str(msg)[:200]}")
                if msg.get("t") == "result":
                    i = msg.get("i")
                    if not isinstance(i, int) or not 0 <= i < len(requests):
                        raise _WorkerDied("result for an unknown request")
                    if results[i] is not None:  # already known (a late duplicate): the first counts
                        continue
                    raw = msg.get("raw")
                    if raw is not None:
                        try:
                            wire = _loads_outcome(raw)
                        except ValueError:
                            wire = {"status": "crashed", "note": "the program corrupted the result channel"}
                        if not isinstance(wire, dict):
                            wire = {"status": "crashed", "note": "the program corrupted the result channel"}
                    else:
                        wire = msg.get("o") or {}
                    results[i] = Outcome.from_wire(wire)
                elif msg.get("t") == "done":
                    rss = msg.get("rss")
                    if isinstance(rss, int) and rss > self.peak_rss_kib:
                        self.peak_rss_kib = rss
                    break
                else:
                    raise _WorkerDied(f"unexpected message from worker: {str(msg)[:200]}")
        except _WorkerDied as exc:
            # the zygote may have died without its pipe ending (a forked child still holding
            # it): its exit status tells, before kill() reaps it
            self.exited = exc.exited or self.proc.poll() is not None
            self.kill()
            note = f"{WORKER_LOST} ({exc}); request not completed"
            return [r if r is not None else _crashed(note) for r in results], False
        return [r if r is not None else _crashed("worker returned no result") for r in results], True

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            self.proc.kill()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self._remove_dir()

    def _remove_dir(self) -> None:
        """Remove the working directory, then let go of its lock."""
        shutil.rmtree(self.tmp, ignore_errors=True)
        fd, self.dir_fd = self.dir_fd, None
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass

    def alive(self) -> bool:
        return self.proc.poll() is None


def _kill_all(workers: list) -> None:
    for w in list(workers):
        w.kill()
    workers.clear()


class Sandbox:
    """Runs :class:`ExecRequest` s in worker processes (see the module docstring).

    Args:
        limits: the :class:`Limits` of every execution.
        workers: number of worker processes (each runs one batch at a time); started
            lazily, on first use.
        hash_seed: ``PYTHONHASHSEED`` of the workers (default 0).  Individual batches may ask
            for another seed (``run_batch(..., hash_seed=1)``), which starts separate
            workers, e.g. to detect programs whose result depends on set iteration order.
        python: interpreter for the workers (default: the host's ``sys.executable``).

    Thread-safe: :meth:`run_batch` may be called from several threads; each call takes an
    idle worker.  Use as a context manager, or call :meth:`close`, to kill the workers.
    """

    def __init__(self, limits: Limits = Limits(), workers: int = 1, *, hash_seed: int = 0,
                 python: str | None = None) -> None:
        if workers < 1:
            raise ValueError("workers must be >= 1")
        self.limits = limits
        self.workers = workers
        self.hash_seed = hash_seed
        self.python = python or sys.executable
        self._cond = threading.Condition()
        self._idle: dict[int, list[_Worker]] = {}
        self._count: dict[int, int] = {}
        self._all: list[_Worker] = []
        self._closed = False
        self._finalizer = weakref.finalize(self, _kill_all, self._all)
        #: worker processes started so far (restarts included)
        self.started_workers = 0
        #: batches run again because their worker process ended while running them
        self.retried_batches = 0
        self._peak_rss_kib = 0  # of workers already stopped

    # -- worker pool ----------------------------------------------------------------
    def _acquire(self, seed: int) -> _Worker:
        """An idle worker for ``seed``, a newly started one while fewer than ``workers``
        exist, or (blocking) the next one released."""
        with self._cond:
            while True:
                if self._closed:
                    raise RuntimeError("sandbox is closed")
                idle = self._idle.setdefault(seed, [])
                if idle:
                    return idle.pop()
                if self._count.get(seed, 0) < self.workers:
                    self._count[seed] = self._count.get(seed, 0) + 1
                    break
                self._cond.wait()
        try:
            w = _Worker(seed, self.python)
        except BaseException:
            with self._cond:
                self._count[seed] -= 1
                self._cond.notify_all()
            raise
        with self._cond:
            self._all.append(w)
            self.started_workers += 1
            if self._closed:
                self._all.remove(w)
                w.kill()
                raise RuntimeError("sandbox is closed")
        return w

    def _release(self, w: _Worker, usable: bool) -> None:
        with self._cond:
            if usable and not self._closed:
                self._idle.setdefault(w.hash_seed, []).append(w)
                self._cond.notify()
                return
            if w in self._all:
                self._all.remove(w)
            self._peak_rss_kib = max(self._peak_rss_kib, w.peak_rss_kib)
            self._count[w.hash_seed] = self._count.get(w.hash_seed, 1) - 1
            self._cond.notify_all()  # a waiter may start a replacement
        w.kill()

    # -- public API -----------------------------------------------------------------
    def run(self, request: ExecRequest) -> Outcome:
        """Run one request (a batch of one)."""
        return self.run_batch([request])[0]

    def run_batch(self, requests: Sequence[ExecRequest], *, hash_seed: int | None = None) -> list[Outcome]:
        """Run ``requests`` one after another in one forked child of one worker; the
        outcomes come back in the same order.  Never raises for a misbehaving program.

        A batch cut short because the worker process itself ended (killed from outside,
        say; a forked child dying is the program's outcome and does not count) is run
        again, from its first request, on a new worker, once: the outcomes are those of
        that second run.  If its worker ends too (a program that kills its worker), the
        requests not completed are ``crashed`` outcomes ("sandbox worker lost")."""
        requests = list(requests)
        if not requests:
            return []
        for r in requests:
            if not isinstance(r, ExecRequest):
                raise TypeError(f"expected ExecRequest, got {type(r).__name__}")
        seed = self.hash_seed if hash_seed is None else hash_seed
        for attempt in range(2):
            w = self._acquire(seed)
            usable = False
            try:
                outcomes, usable = w.run_batch(requests, self.limits)
            finally:
                self._release(w, usable)
            if usable or not w.exited or attempt:
                break
            with self._cond:
                self.retried_batches += 1
        return outcomes

    def map(self, batches: Iterable[Sequence[ExecRequest]]) -> Iterator[list[Outcome]]:
        """Run many batches across the workers; yields each batch's outcomes in input
        order.  Consumes ``batches`` lazily (at most ``2 * workers`` batches ahead)."""
        if self.workers == 1:
            for b in batches:
                yield self.run_batch(b)
            return
        pending: deque[Future] = deque()
        with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="codemorph-sandbox") as ex:
            for b in batches:
                pending.append(ex.submit(self.run_batch, list(b)))
                if len(pending) >= 2 * self.workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()

    @property
    def worker_pids(self) -> list[int]:
        """Process ids of the worker (zygote) processes alive now, oldest first; the
        children they fork to run programs are not included."""
        with self._cond:
            return [w.proc.pid for w in self._all if w.alive()]

    @property
    def peak_memory(self) -> int:
        """The largest peak resident set size, in bytes, of any process this sandbox ran
        programs in (the children its workers forked, replaced workers included), as of
        the last batch each worker finished; 0 before the first batch.  An execution's
        address space is capped by :attr:`Limits.memory`, so this stays below that cap."""
        with self._cond:
            return 1024 * max([self._peak_rss_kib] + [w.peak_rss_kib for w in self._all])

    def close(self) -> None:
        """Kill every worker process (and whatever their children left running)."""
        with self._cond:
            self._closed = True
            workers = list(self._all)
            self._peak_rss_kib = max([self._peak_rss_kib] + [w.peak_rss_kib for w in workers])
            self._cond.notify_all()
        for w in workers:
            w.kill()
        with self._cond:
            self._all.clear()
            self._idle.clear()
            self._count.clear()

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
