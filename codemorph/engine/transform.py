"""The :class:`Transform` base class, its result type and the helpers transforms share.

A transform is a small, focused rewriter in the style of LibCST's codemods: it receives
an immutable libcst tree and a :class:`RewriteContext`, and returns a new tree (or raises
:class:`~codemorph.errors.NotApplicable` with a reason).  Built-in transforms use exactly
this API; a plugin author has nothing more and nothing less.
"""

from __future__ import annotations

import builtins
import collections
import hashlib
import keyword
import random
import signal
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Collection, Iterable, Iterator, Mapping, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from codemorph.errors import NotApplicable, ParseError, interrupts_run
from codemorph.engine.program import Program
from codemorph.engine.stdlib import star_import_names

__all__ = [
    "DEEP_NESTING",
    "nesting_depth",
    "Site",
    "Claim",
    "TransformError",
    "TransformResult",
    "record_distribution",
    "RewriteContext",
    "Transform",
    "derive_rng",
    "derive_seed",
    "identifiers_in",
    "bound_names",
    "module_code",
    "BUILTIN_NAMES",
    "DYNAMIC_SCOPE_BUILTINS",
]

#: Names of the builtins module (shadowing one of them changes a program's meaning).
BUILTIN_NAMES: frozenset[str] = frozenset(dir(builtins))

#: Builtins whose result depends on local variable names; a function that calls one of
#: them cannot have its locals renamed or new locals added without changing behaviour.
DYNAMIC_SCOPE_BUILTINS: frozenset[str] = frozenset({"eval", "exec", "locals", "globals", "vars", "dir"})


def unnormalized_identifier(source: str) -> tuple[str, str] | None:
    """The first identifier of ``source`` that Python reads as another spelling, as
    ``(written, read)``, or ``None``: the parser folds identifiers to NFKC (PEP 3131), so
    ``ｌｅｎ`` is ``len`` and ``ａ`` is ``a``, while libcst keeps the text as written, and a
    transform's scope analysis would take them for two names.  ``None`` at once for ASCII
    text (about 99% of CRUXEval); otherwise the source's ``NAME`` tokens are checked (a
    source that does not tokenize gives ``None``: it is not a program to rewrite)."""
    if source.isascii():
        return None
    import io
    import tokenize
    import unicodedata

    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.NAME and not tok.string.isascii():
                read = unicodedata.normalize("NFKC", tok.string)
                if read != tok.string:
                    return tok.string, read
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return None


def derive_seed(seed: int, *parts: object) -> int:
    """A 64-bit seed derived from ``seed`` and ``parts`` by SHA-256.

    Independent of ``PYTHONHASHSEED``, process and machine, so that the same program,
    pipeline and seed always give byte-identical output.
    """
    text = "\x1f".join([str(seed), *map(str, parts)])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def derive_rng(seed: int, *parts: object) -> random.Random:
    """A :class:`random.Random` seeded with :func:`derive_seed` ``(seed, *parts)``."""
    return random.Random(derive_seed(seed, *parts))


def _cache_visitor_methods() -> None:
    """Make libcst's ``BatchableCSTVisitor.get_visitors`` cheap: it runs
    ``inspect.getmembers`` on every metadata provider instance (~5 ms each, several per
    program); the names of a class's visitor methods are found once per class and bound
    per instance.  An instance with its own ``visit_*``/``leave_*`` attributes is served by
    libcst's original method.  Performance only: the returned mapping is the same."""
    cls = cst.BatchableCSTVisitor
    original = cls.get_visitors
    if getattr(original, "_codemorph_cached", False):
        return
    names_of: dict[type, tuple[str, ...]] = {}

    def get_visitors(self: Any) -> Mapping[str, Any]:
        own = getattr(self, "__dict__", None)
        if own and any(k.startswith(("visit_", "leave_")) for k in own):
            return original(self)
        names = names_of.get(type(self))
        if names is None:
            methods = original(self)
            names_of[type(self)] = tuple(methods)
            return methods
        return {n: getattr(self, n) for n in names}

    get_visitors._codemorph_cached = True  # type: ignore[attr-defined]
    get_visitors.__doc__ = original.__doc__
    cls.get_visitors = get_visitors  # type: ignore[method-assign]


_cache_visitor_methods()


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


# libcst trees are immutable: a result computed for a node object holds as long as the node
# lives.  The few most recent nodes are remembered (with a reference, so ids are not reused);
# the transforms of one ``generate`` row all start from the same module.
_MEMO_SIZE = 16
_identifiers_memo: "collections.OrderedDict[int, tuple[cst.CSTNode, Any]]" = collections.OrderedDict()
_code_memo: "collections.OrderedDict[int, tuple[cst.CSTNode, Any]]" = collections.OrderedDict()
_bound_memo: "collections.OrderedDict[int, tuple[cst.CSTNode, Any]]" = collections.OrderedDict()


def _memoized(table: "collections.OrderedDict[int, tuple[cst.CSTNode, Any]]", node: cst.CSTNode, fn: Any) -> Any:
    hit = table.get(id(node))
    if hit is not None and hit[0] is node:
        table.move_to_end(id(node))
        return hit[1]
    value = fn(node)
    table[id(node)] = (node, value)
    while len(table) > _MEMO_SIZE:
        table.popitem(last=False)
    return value


def _identifiers(module: cst.CSTNode) -> frozenset[str]:
    v = _Names()
    module.visit(v)
    return frozenset(v.names)


def identifiers_in(module: cst.CSTNode) -> frozenset[str]:
    """Every identifier spelled anywhere in ``module``: variables, attributes, keywords
    arguments, parameters, imports.  A name outside this set cannot clash with the code.

    Memoized per node object (libcst nodes are immutable): the 16 most recent nodes."""
    return _memoized(_identifiers_memo, module, _identifiers)


def _code(module: cst.Module) -> str:
    return module.code


def module_code(module: cst.Module) -> str:
    """``module.code`` (the source text libcst generates for the tree), memoized per module
    object like :func:`identifiers_in`: a transform that checks its result's text and the
    engine that compiles it generate it once."""
    return _memoized(_code_memo, module, _code)


class _Bindings(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()
        self.star_import = False

    def _target(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name):
            self.names.add(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for el in node.elements:
                self._target(el.value)
        elif isinstance(node, cst.StarredElement):
            self._target(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._target(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._target(node.name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.names.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.names.add(node.name.value)

    def visit_Param(self, node: cst.Param) -> None:
        self.names.add(node.name.value)

    def visit_Global(self, node: cst.Global) -> None:
        self.names.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.names.update(n.name.value for n in node.names)

    def visit_Del(self, node: cst.Del) -> None:
        self._target(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            name = node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            if isinstance(name, cst.Name):
                self.names.add(name.value)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not isinstance(node.names, cst.ImportStar):
            return
        names = None
        if not node.relative and node.module is not None:
            names = star_import_names(_dotted_name(node.module))
        if names is None:
            self.star_import = True  # a module outside the standard library may bind anything
        else:
            self.names.update(names)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.names.add(node.name.value)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.names.add(node.name.value)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.names.add(node.rest.value)


def _dotted_name(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return f"{_dotted_name(node.value)}.{node.attr.value}"
    return node.value if isinstance(node, cst.Name) else ""


def bound_names(node: cst.CSTNode) -> tuple[frozenset[str], bool]:
    """Names that ``node`` binds anywhere inside it (any scope), and whether it contains
    a ``from ... import *`` that may bind anything.  A star import of a standard-library
    module binds the names that module exports (:func:`codemorph.engine.stdlib.star_import_names`,
    read from its source, never from the program): ``from typing import *`` binds ``List``,
    ``Any``... but not ``iter``; a star import of any other module counts as binding anything.

    Used to decide, conservatively, whether a builtin such as ``iter`` or ``type`` may
    have been shadowed: a transform that emits a call to ``iter`` must refuse when
    ``"iter"`` is in the returned set or a star import is present.

    Memoized per node object, like :func:`identifiers_in`.
    """
    return _memoized(_bound_memo, node, _bindings)


def _bindings(node: cst.CSTNode) -> tuple[frozenset[str], bool]:
    v = _Bindings()
    node.visit(v)
    return frozenset(v.names), v.star_import


@dataclass(frozen=True)
class Site:
    """One place a transform changed: 1-based ``line`` and ``column`` in the *input*
    program, and a short human-readable ``description`` (e.g. ``"x -> v0"``)."""

    line: int
    column: int
    description: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "column": self.column, "description": self.description}


#: The longest exception message a result's reason quotes (characters).
MESSAGE_LIMIT = 500


def _message_of(exc: BaseException) -> str:
    """``str(exc)``, cut to :data:`MESSAGE_LIMIT` characters; when rendering it fails (an
    exception whose message holds a syntax node of a very deep tree recurses in the node's
    ``repr``), a placeholder naming the class, so that reporting a failure cannot fail."""
    try:
        text = str(exc)
    except (Exception, RecursionError):  # noqa: BLE001 - any failure of a __str__
        return f"<the {type(exc).__name__}'s message could not be rendered>"
    return text if len(text) <= MESSAGE_LIMIT else text[:MESSAGE_LIMIT] + "..."


#: Seconds one application of a transform (:meth:`Transform.apply`) may take in the host
#: before it is stopped (``generate`` and ``apply``: ``--transform-time-limit``).  Generous: a 4,500-line
#: program takes a few seconds through two transforms; a plugin stuck in a loop costs its
#: variant after this long instead of hanging the run.
DEFAULT_TIME_LIMIT = 60.0

_time_limit: float | None = DEFAULT_TIME_LIMIT
#: whether a :meth:`Transform.apply` of this process has its ``SIGALRM`` timer armed
_timer_armed = False
#: per thread: whether an application is under way (an apply called from inside another's
#: rewrite runs under the outer one's limit)
_applying = threading.local()
#: told of every outermost application under a time limit (:func:`set_application_watcher`)
_watcher: Callable[[str | None, float | None], None] | None = None


def set_time_limit(seconds: float | None) -> None:
    """Set the time limit of every later :meth:`Transform.apply` in this process, in seconds
    (wall clock); ``None`` or 0: no limit.  ``generate``'s workers set it from
    :attr:`~codemorph.jobs.generate.GenerateConfig.transform_time_limit`.

    Raises:
        ValueError: a negative number of seconds."""
    global _time_limit
    if seconds is not None and seconds < 0:
        raise ValueError(f"a transform time limit must be >= 0 seconds, got {seconds}")
    _time_limit = seconds or None


def time_limit() -> float | None:
    """The time limit of :meth:`Transform.apply` in this process (seconds), ``None`` for none."""
    return _time_limit


def set_application_watcher(watcher: Callable[[str | None, float | None], None] | None) -> None:
    """Have ``watcher(name, seconds)`` called when an outermost :meth:`Transform.apply` starts
    under a time limit (``name``: the transform's registered name; ``seconds``: the limit), and
    ``watcher(None, None)`` when it ends (returned, raised or stopped); ``None``: no watcher.
    The worker processes of :func:`~codemorph.jobs.executors.map_rows` set one that records
    the application where their parent process reads it, so that the parent can kill a
    worker whose transform runs on past the limit (a loop inside C code, or a plugin that
    catches the time limit's exception), which no signal in the worker can stop.  The
    watcher must not raise."""
    global _watcher
    _watcher = watcher


class TransformTimeout(BaseException):
    """Raised (by a ``SIGALRM`` handler) into a transform that ran past the time limit
    (:func:`set_time_limit`); a ``BaseException`` so that a plugin's ``except Exception``
    does not swallow it.  :meth:`Transform.apply` turns it into an error record."""


def _on_alarm(signum: int, frame: Any) -> None:
    if _timer_armed:
        raise TransformTimeout()


@contextmanager
def _time_limited(name: str) -> Iterator[float | None]:
    """The time limit (:func:`time_limit`) around one outermost application of the
    transform ``name``: the watcher is told (:func:`set_application_watcher`) and the
    alarm armed (:func:`_alarm`); yields the limit, or ``None`` when no alarm is armed."""
    limit = _time_limit
    if not limit or getattr(_applying, "active", False):
        yield None
        return
    _applying.active = True
    watcher = _watcher
    try:
        if watcher is not None:
            watcher(name, limit)
        with _alarm(limit) as armed:
            yield armed
    finally:
        _applying.active = False
        if watcher is not None:
            watcher(None, None)


@contextmanager
def _alarm(limit: float) -> Iterator[float | None]:
    """Arm a ``SIGALRM`` timer (``setitimer(ITIMER_REAL)``) of ``limit`` seconds in the main
    thread; elsewhere (signals reach only the main thread), or when a real-time timer is
    already running (the caller's own ``SIGALRM`` timeout, which this one would cancel), or
    without ``setitimer`` (Windows): the watchdog thread's alarm (:func:`_thread_alarm`).
    Yields the limit, or ``None`` when no alarm could be armed."""
    global _timer_armed
    if (_timer_armed or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()
            or signal.getitimer(signal.ITIMER_REAL)[0] > 0):
        with _thread_alarm(limit) as armed:
            yield armed
        return
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    _timer_armed = True
    try:
        # again every second after the limit: a plugin that swallows the first (``except
        # BaseException``) in its loop is interrupted again
        signal.setitimer(signal.ITIMER_REAL, limit, 1.0)
        yield limit
    finally:
        _timer_armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)


class _Alarm:
    """One application's alarm in :func:`_thread_alarm`: the thread (``ident``), when to
    raise next (``due``, ``time.monotonic()`` seconds), whether the application is still
    under way (``active``) and whether an exception was raised into it (``fired``)."""

    __slots__ = ("ident", "due", "active", "fired")

    def __init__(self, ident: int, due: float) -> None:
        self.ident = ident
        self.due = due
        self.active = True
        self.fired = False


#: the alarms of :func:`_thread_alarm` and the condition their watchdog thread waits on; the
#: watchdog raises into a thread only holding it, and only while the alarm is active
_alarms_lock = threading.Condition()
_alarms: set[_Alarm] = set()
_watchdog: threading.Thread | None = None


def _raise_in_thread(ident: int, exc_type: type[BaseException] | None) -> bool:
    """Have ``exc_type`` raised in the thread ``ident`` at its next Python instruction
    (``PyThreadState_SetAsyncExc``); ``None``: drop such an exception not raised yet.
    Whether a thread was found."""
    import ctypes

    obj = ctypes.py_object(exc_type) if exc_type is not None else ctypes.c_void_p(0)
    return ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), obj) == 1


def _can_raise_in_threads() -> bool:
    import sys

    if sys.implementation.name != "cpython":
        return False
    try:
        import ctypes

        return hasattr(ctypes, "pythonapi")
    except ImportError:  # pragma: no cover - a Python without ctypes
        return False


def _watch_alarms() -> None:
    """The watchdog thread: raises :class:`TransformTimeout` into each thread whose alarm
    is due, and again every second while its application runs on (a plugin that swallows
    the first one in its loop is interrupted again); drops the alarms no longer active."""
    import time

    with _alarms_lock:
        while True:
            now = time.monotonic()
            for a in [a for a in _alarms if not a.active]:
                _alarms.discard(a)
            due = [a for a in _alarms if a.active and a.due <= now]
            for a in due:
                a.fired = True
                a.due = now + 1.0
                _raise_in_thread(a.ident, TransformTimeout)
            nxt = min((a.due for a in _alarms), default=None)
            _alarms_lock.wait(None if nxt is None else max(0.0, nxt - now))


@contextmanager
def _thread_alarm(limit: float) -> Iterator[float | None]:
    """The time limit of an application outside the main thread (a Dask worker's thread, a
    library caller's thread) or beside a caller's own ``SIGALRM`` timer: a daemon watchdog
    thread raises :class:`TransformTimeout` into this thread ``limit`` seconds from now,
    and every second after while the application runs on.  Like ``SIGALRM``, it stops a
    transform looping in Python code, not one inside C code (which, holding the GIL, stops
    the watchdog too).  Yields the limit; ``None`` (no alarm) on Pythons other than CPython."""
    global _watchdog
    if not _can_raise_in_threads():
        yield None
        return
    import time

    alarm = _Alarm(threading.get_ident(), time.monotonic() + limit)
    with _alarms_lock:
        if _watchdog is None or not _watchdog.is_alive():
            _watchdog = threading.Thread(target=_watch_alarms, name="codemorph-transform-time-limit", daemon=True)
            _watchdog.start()
        _alarms.add(alarm)
        _alarms_lock.notify()
    try:
        yield limit
    finally:
        # an exception raised from here on comes out of the application (TransformTimeout,
        # which apply reports): never after it
        alarm.active = False
        with _alarms_lock:  # the watchdog raises only holding it: none is raised after this
            _alarms.discard(alarm)
        if alarm.fired:
            _raise_in_thread(alarm.ident, None)  # one raised but not yet delivered is dropped


@dataclass(frozen=True)
class TransformError:
    """An unexpected exception a transform's :meth:`~Transform.rewrite` raised (a bug of
    the transform), caught by :meth:`Transform.apply`, which never raises.

    Attributes:
        transform: the transform's registered name.
        distribution: the package that registered the transform through the
            ``codemorph.transforms`` entry-point group (``"codemorph"`` for built-ins;
            ``""`` when unknown, e.g. a class registered by hand).
        exception: the exception's class name (``"RuntimeError"``).
        message: ``str(exception)``.
    """

    transform: str
    distribution: str
    exception: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"transform": self.transform, "distribution": self.distribution, "exception": self.exception,
                "message": self.message}


# transform class -> the distribution that registered it (filled by the registry)
_distributions: dict[type, str] = {}


def record_distribution(cls: type, distribution: str) -> None:
    """Remember that ``distribution`` registered the transform class ``cls`` (called by
    :class:`~codemorph.engine.registry.Registry`), for :class:`TransformError` records."""
    if distribution:
        _distributions[cls] = distribution


#: levels of syntax tree from which a transform's ``RecursionError`` is taken for the program's
#: nesting (libcst's visitors spend about 4 Python frames per level, so under the default
#: recursion limit of 1,000 a tree fails near 250 levels; 100 leaves room for the caller's frames)
DEEP_NESTING = 100


def nesting_depth(node: cst.CSTNode) -> int:
    """Levels of the libcst tree under ``node`` (``node`` itself is level 1), counted
    without recursion (a tree too deep for a visitor is measured too).

    Args:
        node: any libcst node, usually a :class:`libcst.Module`.

    Returns:
        The number of nodes on the longest root-to-leaf path."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        n, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in n.children)
    return deepest


def _distribution_of(cls: type) -> str:
    found = _distributions.get(cls)
    if found:
        return found
    module = getattr(cls, "__module__", "") or ""
    if module == "codemorph" or module.startswith("codemorph."):
        return "codemorph"
    try:
        from importlib.metadata import packages_distributions

        names = packages_distributions().get(module.partition(".")[0]) or []
    except Exception:  # noqa: BLE001 - metadata of the environment only names the culprit
        names = []
    return names[0] if names else ""


@dataclass(frozen=True)
class Claim:
    """A statement a distractor wrote into a program that must be *false*, with the
    execution that shows it false (run by :mod:`codemorph.verification.claims`, never by
    the transform).

    The claim is shown false when ``entry(args)`` of ``code``, run in the sandbox, returns
    normally and -- when ``expected`` is given -- returns a value that is not equal to
    ``eval(expected)`` (CRUXEval's assertion).  Two kinds are used:

    * an input/output pair (``# f([1, 2]) == 3``): ``code`` is the program, ``args``
      the stated input, ``expected`` the stated output;
    * a value at a point of the program (``print("n = 4")``): ``code`` is a *probe*, the
      program with ``if n == 4: raise AssertionError(...)`` at that point, and ``expected``
      is ``None``: the probe returning at all shows that the value was never 4 there.

    Attributes:
        text: the words inserted (a comment's or a printed line's text).
        code: the program to run (source text).
        entry: the function to call.
        args: the argument-list literal.
        expected: a result literal, or ``None`` (see above).
    """

    text: str
    code: str
    entry: str
    args: str
    expected: str | None = None


@dataclass(frozen=True)
class TransformResult:
    """What :meth:`Transform.apply` returns.

    Attributes:
        transform: the transform's registered name.
        program: the rewritten :class:`Program` (the input program when not applied).
        applied: whether anything was changed.
        sites: the places changed (empty when not applied).
        reason: why nothing was applied (``None`` when applied).
        error: the :class:`TransformError` when the transform raised an unexpected
            exception (then ``applied`` is false), else ``None``.
        claims: the :class:`Claim` objects the rewrite must be shown false by execution
            before it is written (``distractors`` family; empty for others).
        stdout_lines: lines (without their newline) the rewritten program may print and
            the original does not: its stdout may gain exactly these lines, and
            verification accepts that difference and no other.
    """

    transform: str
    program: Program
    applied: bool
    sites: tuple[Site, ...] = ()
    reason: str | None = None
    error: TransformError | None = None
    claims: tuple[Claim, ...] = ()
    stdout_lines: tuple[str, ...] = ()

    @property
    def source(self) -> str:
        """The new source text (the original text when not applied)."""
        return self.program.source


#: rewrites tried (drawing on, from the same generator) while every change falls in a read-only harness
_READ_ONLY_ATTEMPTS = 3


def _top_level_name(stmt: cst.CSTNode) -> str | None:
    return stmt.name.value if isinstance(stmt, (cst.ClassDef, cst.FunctionDef)) else None


def _locals_of(definition: cst.CSTNode) -> frozenset[str]:
    """Names bound as locals by the functions inside a top-level ``class``/``def``
    (parameters and plain-name targets; ``global``/``nonlocal`` names excluded)."""
    import ast

    tree = ast.parse(cst.Module(body=[definition]).code)
    out: set[str] = set()
    shared: set[str] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        a = fn.args
        out.update(x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x is not None)
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                out.add(node.id)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                shared.update(node.names)
    return frozenset(out - shared)


def _keep_read_only(program: Program, ctx: "RewriteContext", new: cst.Module) -> cst.Module:
    """``new`` with the top-level definitions named in ``program.read_only`` as they were in
    ``program`` (a harness is not the program under test: a change there would label a
    variant whose code under test is unchanged), and the sites recorded inside them dropped
    from ``ctx.sites``.

    Raises:
        NotApplicable: the rewrite renames or removes such a definition, changes it together
            with the code outside it (an identifier spelled differently on both sides, as a
            rename does: putting the harness back would break the pair), or adds printed lines
            (``ctx.stdout_lines``) while changing it.
    """
    names = program.read_only
    old = {n: s for s in program.module.body if (n := _top_level_name(s)) in names}
    if not old:
        return new
    body = list(new.body)
    where = {n: i for i, s in enumerate(body) if (n := _top_level_name(s)) in old}
    changed = sorted(n for n in old if n not in where or not body[where[n]].deep_equals(old[n]))
    if not changed:
        return new
    label = ", ".join(changed)
    what = f"{label}, the harness the row's input calls (read-only)"
    if any(n not in where for n in changed):
        raise NotApplicable(f"the rewrite renames or removes {what}")
    # identifiers the rewrite changed in the harness, but for the harness's own locals (a local
    # renamed there is independent of one renamed in the code under test)
    in_harness = frozenset().union(*((identifiers_in(old[n]) ^ identifiers_in(body[where[n]]))
                                     - _locals_of(old[n]) - _locals_of(body[where[n]]) for n in changed))
    rest_old = identifiers_in(program.module.with_changes(
        body=[s for s in program.module.body if _top_level_name(s) not in old]))
    rest_new = identifiers_in(new.with_changes(body=[s for s in body if _top_level_name(s) not in old]))
    if in_harness & (rest_old ^ rest_new):
        raise NotApplicable(f"the rewrite changes {label} together with the code it calls ({what})")
    if ctx.stdout_lines:
        raise NotApplicable(f"the rewrite prints from {what}")
    spans = [ctx.metadata(PositionProvider)[old[n]] for n in changed]
    ctx.sites = [site for site in ctx.sites
                 if not any(r.start.line <= site.line <= r.end.line for r in spans)]
    for n in changed:
        body[where[n]] = old[n]
    return new.with_changes(body=body)


class RewriteContext:
    """Everything a transform may consult while rewriting one program.

    Args:
        program: the program being rewritten (its ``module`` is the tree passed to
            :meth:`Transform.rewrite`).
        rng: the only source of randomness a transform may use.
        inputs: argument literals the entry point will be called with (e.g.
            ``["'abc', 3"]``); lets a transform know, for instance, which parameters a
            harness passes by keyword.
        observations: runtime facts observed in the sandbox (types of variables per
            function), or ``None`` when not collected; see ``codemorph.observe``.
        outputs: the result literal the entry point returns on each of ``inputs`` (e.g.
            a benchmark row's recorded ``output``), when known; empty otherwise.
        harness: the *harness contract* (``generate`` sets it): the program is a
            standalone module whose only outside caller is a harness that calls the entry
            point with ``inputs`` (as written: positional arguments stay positional).  Then
            no other function, class or parameter is part of an API.  ``False`` (the
            default, and ``codemorph apply FILE``): the program may be a library module, so
            its public module-level names and their parameters are an API that callers
            codemorph cannot see may use by name (keyword arguments).
        keep_claims: when given, the only claims (:meth:`claim`, by text) a distractor may
            make: ``generate`` applies a distractor again with the claims of its variant
            that execution showed false, when others of them were not, so that the variant
            keeps those and drops the others (:attr:`keep_claims`); ``None`` (the default):
            any claim.

    Helpers: :meth:`fresh_name`, :meth:`metadata`, :meth:`position`, :meth:`record`,
    :meth:`shadowed`.
    """

    def __init__(self, program: Program, rng: random.Random, inputs: Sequence[str] = (),
                 observations: Any = None, outputs: Sequence[str] = (),
                 harness: bool = False, keep_claims: Collection[str] | None = None) -> None:
        self.program = program
        #: the only claim texts a distractor may make (``None``: any), see the class docstring
        self.keep_claims: frozenset[str] | None = None if keep_claims is None else frozenset(keep_claims)
        self.rng = rng
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.observations = observations
        #: false statements the rewrite makes, to be shown false by execution (:meth:`claim`)
        self.claims: list[Claim] = []
        #: lines the rewritten program may print in addition (:meth:`allow_stdout`)
        self.stdout_lines: list[str] = []
        self.harness = bool(harness)
        self.entry_point = program.entry_point
        #: the program runs as a script (:attr:`Program.script`): its module-level names are
        #: its own (no harness reads them), so module-level code may be rewritten like a
        #: function body
        self.script = program.script
        #: names of top-level definitions no rewrite may change (:attr:`Program.read_only`: a
        #: ``call`` row's harness class); :meth:`Transform.apply` puts them back as they were,
        #: so a transform may skip sites inside them up front
        self.read_only = program.read_only
        #: a transform that renames the entry point sets the new name here
        self.new_entry_point: str | None = None
        self.sites: list[Site] = []
        self._bound: tuple[frozenset[str], bool] | None = bound_names(program.module)
        # names bound anywhere, including those a star import of a standard-library module binds
        # (``from operator import *`` binds ``index`` and ``pos``), are no fresh names
        self._taken: set[str] = set(identifiers_in(program.module)) | set(self._bound[0]) | set(BUILTIN_NAMES) \
            | set(keyword.kwlist) | set(getattr(keyword, "softkwlist", []))

    # -- metadata -----------------------------------------------------------------
    @property
    def wrapper(self) -> MetadataWrapper:
        """A :class:`~libcst.metadata.MetadataWrapper` over ``program.module`` that keeps
        node identity (``unsafe_skip_copy``), so metadata can be looked up for the very
        nodes a transformer visits.  It is the program's own
        (:attr:`~codemorph.program.Program.metadata_wrapper`): every transform applied to
        the same program shares the providers already resolved (scopes, positions)."""
        return self.program.metadata_wrapper

    def metadata(self, provider: type) -> Mapping[cst.CSTNode, Any]:
        """Resolve a libcst metadata provider (e.g. ``ScopeProvider``) over the module."""
        return self.wrapper.resolve(provider)

    def position(self, node: cst.CSTNode) -> tuple[int, int]:
        """1-based (line, column) where ``node`` starts in the input program."""
        pos = self.metadata(PositionProvider).get(node)
        if pos is None:
            return (0, 0)
        return (pos.start.line, pos.start.column + 1)

    def record(self, node: cst.CSTNode | None, description: str) -> None:
        """Record one changed site at ``node`` (a node of the input tree)."""
        line, col = self.position(node) if node is not None else (0, 0)
        self.sites.append(Site(line, col, description))

    def claim(self, claim: Claim) -> None:
        """Declare a false statement the rewrite writes; verification runs ``claim`` and
        rejects the rewrite unless the execution shows it false (see :class:`Claim`)."""
        self.claims.append(claim)

    def allow_stdout(self, line: str) -> None:
        """Declare a line (no newline) the rewritten program prints and the original does
        not; verification then accepts exactly such extra lines on stdout."""
        if line not in self.stdout_lines:
            self.stdout_lines.append(line)

    # -- names --------------------------------------------------------------------
    def fresh_name(self, hint: str = "v") -> str:
        """A new identifier, spelled nowhere in the program, bound by no star import of a
        standard-library module in it (a star import of another module may bind anything:
        :meth:`shadowed` lists every builtin then), not a builtin or keyword,
        and never returned before for this context: ``hint``, ``hint_1``, ``hint_2``..."""
        base = hint if hint.isidentifier() else "v"
        candidate, i = base, 0
        while candidate in self._taken:
            i += 1
            candidate = f"{base}_{i}"
        self._taken.add(candidate)
        return candidate

    def reserve(self, name: str) -> bool:
        """Claim ``name`` for new code; ``False`` (and nothing reserved) when it is taken."""
        if name in self._taken or not name.isidentifier() or keyword.iskeyword(name):
            return False
        self._taken.add(name)
        return True

    def is_free(self, name: str) -> bool:
        """Whether ``name`` is unused by the program, not builtin/keyword, not reserved."""
        return name.isidentifier() and name not in self._taken

    def shadowed(self, *names: str) -> list[str]:
        """Which of the builtin ``names`` the program might rebind anywhere (all of them
        when it has a star import).  Emit a call to a builtin only when it is not listed."""
        if self._bound is None:
            self._bound = bound_names(self.program.module)
        bound, star = self._bound
        return [n for n in names if star or n in bound]


class Transform:
    """Base class of every transform, built-in or third-party.

    A subclass sets the class attributes :attr:`name`, :attr:`family` and
    :attr:`description`, and implements :meth:`rewrite`.  Options are keyword arguments
    of the constructor (documented by each subclass).

    Soundness contract: :meth:`rewrite` must either return a tree whose behaviour equals
    the input's for every input (return value, exception class, argument mutation,
    stdout), or raise :class:`~codemorph.errors.NotApplicable` with the reason.  Comments
    and formatting outside the changed sites must be kept (edit the libcst tree; never
    regenerate code from ``ast``).
    """

    #: registered name, e.g. ``"rename-locals"``
    name: ClassVar[str] = ""
    #: family, e.g. ``"naming"``, ``"dead-code"``, ``"loops"``, ``"branches"``
    family: ClassVar[str] = ""
    #: one line shown by ``codemorph list``
    description: ClassVar[str] = ""
    #: preconditions the transform establishes before rewriting (documentation)
    preconditions: ClassVar[tuple[str, ...]] = ()
    #: whether :attr:`RewriteContext.observations` must be present
    needs_runtime_types: ClassVar[bool] = False
    #: whether the transform does more when observations are given (``generate`` then
    #: collects them even though they are optional)
    uses_runtime_types: ClassVar[bool] = False

    def __init__(self, **options: Any) -> None:
        if options:
            raise TypeError(f"{type(self).__name__} takes no option {sorted(options)}")

    def __repr__(self) -> str:
        return f"<transform {self.name}>"

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        """Return the rewritten tree, or raise ``NotApplicable(reason)``.

        Args:
            module: the program's immutable libcst tree (``ctx.program.module``).
            ctx: helpers and facts; call ``ctx.record(node, text)`` for every change.
        """
        raise NotImplementedError

    def apply(self, program: Program, rng: random.Random | int | None = None, *,
              inputs: Sequence[str] = (), observations: Any = None, outputs: Sequence[str] = (),
              harness: bool = False, keep_claims: Collection[str] | None = None) -> TransformResult:
        """Rewrite ``program``.

        Args:
            program: the program to rewrite.
            rng: a :class:`random.Random`, or an int seed (``None`` means seed 0).
            inputs: argument literals the entry point will be called with.
            observations: runtime observations (required when
                :attr:`needs_runtime_types`; otherwise optional).
            outputs: the recorded result literal on each of ``inputs``, when known
                (:attr:`RewriteContext.outputs`).
            harness: whether the harness contract holds (see :class:`RewriteContext`):
                only a harness calls the program, and only its entry point, with
                ``inputs``.  ``generate`` passes ``True``; the default ``False`` keeps the
                program's public names and parameters (an API) as they are.
            keep_claims: the only claims a distractor may make (:attr:`RewriteContext.keep_claims`;
                ``None``: any).

        Returns:
            A :class:`TransformResult`; ``applied=False`` with a ``reason`` when a
            precondition does not hold, nothing matched, or the rewrite would not compile;
            ``applied=False`` with an :attr:`~TransformResult.error` as well when
            :meth:`rewrite` raised anything else than
            :class:`~codemorph.errors.NotApplicable` (a bug of the transform).  Never
            raises (as LibCST's codemod runner, which turns a codemod's exception into a
            failure result): one transform's bug costs its variant, never the run.
            Any ``BaseException`` raised by :meth:`rewrite` (``SystemExit``,
            ``GeneratorExit``, a plugin's own subclass, a ``KeyboardInterrupt`` the user
            did not cause) is such an error too; only the user's interruption propagates
            (:func:`~codemorph.errors.interrupts_run`: a ``KeyboardInterrupt`` after the
            command line's signal handler recorded Ctrl-C or ``SIGTERM``, or any
            ``KeyboardInterrupt`` in a process that does not track them).  A ``RecursionError`` on a program whose
            syntax tree is at least :data:`DEEP_NESTING` levels deep (:func:`nesting_depth`)
            is no error but a refusal, reason ``"expression nesting too deep for the
            rewriter: ..."`` (libcst's visitors recurse per level).  An application that
            runs past the time limit (:func:`set_time_limit`, default
            :data:`DEFAULT_TIME_LIMIT` seconds; ``SIGALRM`` in the main thread, a watchdog
            thread elsewhere: a loop in Python code is stopped, one inside C code is not) is
            stopped and is an error too, exception ``TransformTimeout``.
        """
        if not isinstance(rng, random.Random):
            rng = derive_rng(0 if rng is None else int(rng), self.name)
        if self.needs_runtime_types and observations is None:
            return TransformResult(self.name, program, False,
                                   reason="needs runtime type observations, none given")
        limit = None
        try:
            with _time_limited(self.name) as limit:
                return self._apply(program, rng, inputs, observations, outputs, harness, keep_claims)
        except TransformTimeout:
            err = TransformError(self.name, _distribution_of(type(self)), "TransformTimeout", (
                f"transform {self.name!r} did not finish within the time limit of {limit:g} s and was stopped "
                "(--transform-time-limit SECONDS changes it)"))
            return TransformResult(self.name, program, False, reason=f"raised {err.exception}: {err.message}",
                                   error=err)
        except RecursionError as exc:
            # libcst's visitors recurse once (several frames) per level of the syntax tree: a
            # 900-term ``1 + 1 + ... + 1`` is 900 levels deep.  Such a program is not
            # rewritable here (applied=False, no error); a RecursionError on a shallow tree is
            # a bug of the transform (an error, below)
            depth = nesting_depth(program.module)
            if depth >= DEEP_NESTING:
                return TransformResult(self.name, program, False, reason=(
                    f"expression nesting too deep for the rewriter: the syntax tree is {depth} levels deep "
                    f"(RecursionError: {_message_of(exc)})"))
            err = TransformError(self.name, _distribution_of(type(self)), type(exc).__name__, _message_of(exc))
            return TransformResult(self.name, program, False, reason=f"raised {err.exception}: {err.message}",
                                   error=err)
        except BaseException as exc:  # noqa: BLE001 - the policy: a transform's bug is a result
            # (SystemExit, GeneratorExit, a plugin's own BaseException class, a KeyboardInterrupt
            # nobody's Ctrl-C caused: none may end the caller's run; the user's interruption does)
            if interrupts_run(exc):
                raise
            message = _message_of(exc)
            depth = nesting_depth(program.module)
            if depth >= DEEP_NESTING:
                # on such a tree libcst's metadata providers can fail half-way (a recursion
                # they swallow leaves a node without metadata: a KeyError later), so any
                # failure there is the depth's, and a refusal like the RecursionError above
                return TransformResult(self.name, program, False, reason=(
                    f"expression nesting too deep for the rewriter: the syntax tree is {depth} levels deep "
                    f"({type(exc).__name__}: {message})"))
            err = TransformError(self.name, _distribution_of(type(self)), type(exc).__name__, message)
            return TransformResult(self.name, program, False, reason=f"raised {err.exception}: {err.message}",
                                   error=err)

    def _apply(self, program: Program, rng: random.Random, inputs: Sequence[str], observations: Any,
               outputs: Sequence[str] = (), harness: bool = False,
               keep_claims: Collection[str] | None = None) -> TransformResult:
        ctx = RewriteContext(program, rng, inputs, observations, outputs, harness, keep_claims)
        folded = unnormalized_identifier(program.source)
        if folded is not None:
            return TransformResult(self.name, program, False, reason=(
                f"the program spells identifier {folded[0]!r}, which Python reads as {folded[1]!r} (NFKC): "
                "scopes are not analysed under that folding"))
        attempts = _READ_ONLY_ATTEMPTS if program.read_only else 1
        for attempt in range(attempts):
            if attempt:
                ctx = RewriteContext(program, rng, inputs, observations, outputs, harness, keep_claims)
            try:
                new_module = self.rewrite(program.module, ctx)
            except NotApplicable as exc:
                return TransformResult(self.name, program, False, reason=exc.reason)
            if new_module is None or (new_module.deep_equals(program.module) and not ctx.new_entry_point):
                return TransformResult(self.name, program, False, reason="no site to rewrite")
            try:
                new_module = _keep_read_only(program, ctx, new_module)
            except NotApplicable as exc:
                return TransformResult(self.name, program, False, reason=exc.reason)
            if not new_module.deep_equals(program.module) or ctx.new_entry_point:
                break
        else:
            names = ", ".join(sorted(program.read_only))
            return TransformResult(self.name, program, False, reason=(
                f"every site rewritten is in {names}, the harness the row's input calls (read-only)"))
        if ctx.keep_claims is not None and any(c.text not in ctx.keep_claims for c in ctx.claims):
            # a distractor that does not read ``keep_claims`` made a claim of its own choice
            return TransformResult(self.name, program, False,
                                   reason="the rewrite makes a claim that is not among the claims to keep")
        code = module_code(new_module)
        try:
            # compiled now, its libcst tree parsed only if something reads it (a pipeline's next
            # step, a prover): the tree at hand is not the parse of ``code`` (a transform may
            # build nodes the parser would group otherwise), so the text stays the truth
            new_program = Program.compiled(code, ctx.new_entry_point or program.entry_point, program.filename,
                                           program.script, program.read_only)
        except ParseError as exc:  # a transform bug must never reach the output
            return TransformResult(self.name, program, False,
                                   reason=f"rewrite did not compile ({exc}); left unchanged")
        sites = tuple(sorted(ctx.sites, key=lambda s: (s.line, s.column, s.description)))
        return TransformResult(self.name, new_program, True, sites, claims=tuple(ctx.claims),
                               stdout_lines=tuple(ctx.stdout_lines))
