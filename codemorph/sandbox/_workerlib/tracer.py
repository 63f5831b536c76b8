"""The child's tracers: :class:`CoverageTracer` (lines and arcs at C speed, from coverage.py's
C tracer) and :class:`Tracer` (the ``sys.settrace`` tracer in Python: lines and arcs when the
C tracer is unavailable or cannot be used, types of locals, ``counts`` and line budgets).
Imports only the standard library (see ``codemorph/sandbox/_worker.py``); coverage.py's
extension module is loaded from its file (:func:`load_ctracer`), not imported as a package."""

import importlib.machinery
import importlib.util
import itertools
import opcode
import os
import sys
import time

from builtins import MemoryError, RecursionError, any, frozenset, issubclass, len, map, next, range, type  # noqa: A004

from .common import PROGRAM_FILE
from .execution import NO_LIMIT, STATE, stop_out_of_lines
from .fingerprint import type_name


_FOR_ITER = opcode.opmap.get("FOR_ITER")

# The trace functions run inside the program's run: what they call must not be something the
# program can replace.  The builtins they use are bound above (a program that sets
# ``builtins.next`` or ``builtins.len`` would otherwise have its function called by the
# tracer, on every line event or at the hand-over), and ``sys.settrace`` here (a program may
# rebind ``sys.settrace``; the hand-over called the program's function, which then counted it).
_settrace = sys.settrace


def for_lines(code):
    """``(lines, offsets)``: the line numbers of ``code``'s own ``for`` statements (the lines
    of its ``FOR_ITER`` instructions) and the offsets of those instructions.  A line event
    on such a line at another offset starts a loop (its iterable is evaluated next); at a
    ``FOR_ITER`` offset, it starts an iteration."""
    raw = code.co_code
    offsets = frozenset(i for i in range(0, len(raw), 2) if raw[i] == _FOR_ITER)
    lines = frozenset(line for start, end, line in code.co_lines()
                      if line is not None and any(start <= o < end for o in offsets))
    return lines, offsets


#: ``co_flags`` of code whose frames are suspended and resumed: CO_GENERATOR,
#: CO_COROUTINE, CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR (the values of ``inspect``'s
#: constants, the same in every CPython 3)
_RESUMABLE = 0x20 | 0x80 | 0x100 | 0x200


def resumes_frames(code):
    """Whether the code object ``code`` (a module's) or any code nested in it is a
    generator, generator expression, coroutine or asynchronous generator: coverage.py's C
    tracer records an arc ``(yield line, next line)`` when such a frame is resumed, where
    :class:`Tracer` starts it afresh (only the line), so a run of such a program is not
    handed over (:meth:`Tracer.hand_over`): its arcs would not be the Python tracer's."""
    stack = [code]
    while stack:
        c = stack.pop()
        if c.co_flags & _RESUMABLE:
            return True
        stack.extend(k for k in c.co_consts if k.__class__ is c.__class__)
    return False


#: opcodes that bind a name of a frame's ``f_locals`` (``STORE_NAME``: a class body's)
_BINDS = frozenset(opcode.opmap[n] for n in ("STORE_FAST", "STORE_DEREF", "STORE_NAME"))


def binding_lines(code):
    """The line numbers of ``code`` (one code object, not the ones nested in it) that hold
    an instruction binding a local (``STORE_FAST``, ``STORE_DEREF``, ``STORE_NAME``), or
    ``None`` when the code has cell or free variables (another frame, a closure, may rebind
    them at any call).  ``co_code`` is read unspecialised (CPython 3.11's ``co_code`` is
    the deoptimised bytecode); two bytes per code unit, inline caches included (their
    opcode byte is ``CACHE``, 0)."""
    if code.co_cellvars or code.co_freevars:
        return None
    raw = code.co_code
    binds = _BINDS
    out = set()
    for start, end, line in code.co_lines():
        if line is None or line in out:
            continue
        for i in range(start, end, 2):
            if raw[i] in binds:
                out.add(line)
                break
    return frozenset(out)


_STORE_FAST = opcode.opmap["STORE_FAST"]
_STORE_NAME = opcode.opmap["STORE_NAME"]
_DELETE_FAST = opcode.opmap["DELETE_FAST"]
_EXTENDED_ARG = opcode.opmap["EXTENDED_ARG"]
#: opcodes that bind a local some other way (another interpreter's fused stores): code with
#: one gets snapshots of all its locals (:func:`binding_names` is ``None``)
_OTHER_BINDS = frozenset(op for name, op in opcode.opmap.items()
                         if ("STORE_FAST" in name or "STORE_DEREF" in name) and name not in ("STORE_FAST", "STORE_DEREF"))


def binding_names(code):
    """``{line: (local names)}``: for every line of ``code`` (one code object, not the ones
    nested in it) that holds an instruction binding a local (``STORE_FAST``, or
    ``STORE_NAME`` in a class body), the names it binds; or ``None`` when the code has cell
    or free variables (another frame, a closure, may rebind them at any call), binds a
    local with another instruction, or binds one in an instruction without a line number
    other than the cleanup of an ``except ... as`` name (its store of ``None`` followed by
    the name's deletion, never visible at a line event).  The lines are those of
    :func:`binding_lines`.  ``co_code`` is read unspecialised, arguments widened by
    ``EXTENDED_ARG``."""
    if code.co_cellvars or code.co_freevars:
        return None
    raw = code.co_code
    line_of = {}
    for start, end, line in code.co_lines():
        for i in range(start, end, 2):
            line_of[i] = line
    names = {}
    ext = 0
    n = len(raw)
    for i in range(0, n, 2):
        op, arg = raw[i], raw[i + 1] | ext
        ext = arg << 8 if op == _EXTENDED_ARG else 0
        if op == _STORE_FAST or op == _STORE_NAME:
            name = code.co_varnames[arg] if op == _STORE_FAST else code.co_names[arg]
            line = line_of.get(i)
            if line is None:
                # the ``except ... as`` cleanup: ``STORE_FAST e`` then ``DELETE_FAST e``
                # (inline caches between them are ``CACHE`` code units, opcode 0)
                j = i + 2
                while j < n and raw[j] == 0:
                    j += 2
                if op == _STORE_FAST and j < n and raw[j] == _DELETE_FAST and raw[j + 1] == raw[i + 1] \
                        and i >= 2 and raw[i - 2] != _EXTENDED_ARG:
                    continue
                return None
            got = names.setdefault(line, [])
            if name not in got:
                got.append(name)
        elif op in _OTHER_BINDS:
            return None
    return {line: tuple(got) for line, got in names.items()}


#: ``id(code)`` -> ``(code, binding_names(code))``, kept for the child's life: a batch runs one
#: program on many inputs, and every typed run asked again for the same code objects (about
#: 6.5 microseconds each on a CRUXEval function).  Keyed by identity (the entry holds the
#: code object, so its id is not reused), not by the code object's value, whose hash is
#: computed afresh at every lookup; at most :data:`BINDING_MAX` entries
_BINDING = {}
BINDING_MAX = 1024


#: a local's value read by :meth:`Tracer._glob`'s local trace functions when the local is unbound
_UNBOUND = object()

#: at most this many code objects' makers of local trace functions per run (:attr:`Tracer.makers`)
MAKERS_MAX = 256


#: code names whose frames are no call for the call depth of ``counts``
NOT_CALLS = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>", "<module>"})


def load_ctracer():
    """coverage.py's C tracer class (``CTracer``) and its ``CFileDisposition``, or ``(None,
    None)`` when coverage (>= 7) is not installed or has no compiled tracer.

    The extension module (``coverage/tracer.*.so``) is loaded from its file: ``import
    coverage.tracer`` would first run ``coverage/__init__.py``, which imports some fifty
    modules (sqlite3, the reporting code) into every child, where a program would find them
    loaded and every module check (:func:`~.child._modules_changed`) would walk them.
    The module is not registered in ``sys.modules``: a program's ``import coverage`` gets a
    fresh coverage."""
    try:
        spec = importlib.util.find_spec("coverage")
        if spec is None or not spec.origin:
            return None, None
        here = os.path.dirname(spec.origin)
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(here, "tracer" + suffix)
            if os.path.exists(path):
                break
        else:
            return None, None
        loader = importlib.machinery.ExtensionFileLoader("coverage.tracer", path)
        module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(
            "coverage.tracer", path, loader=loader))
        loader.exec_module(module)
        return module.CTracer, module.CFileDisposition
    except Exception:  # an incompatible or broken build: the Python tracer does the work
        return None, None


_CTRACER, _DISPOSITION = load_ctracer()


def _disposition(filename, trace):
    d = _DISPOSITION()
    d.original_filename = d.canonical_filename = filename
    d.source_filename = filename if trace else None
    d.trace = trace
    d.reason = ""
    d.file_tracer = None
    d.has_dynamic_filename = False
    return d


def _should_trace(filename, frame):
    """coverage's ``should_trace`` callback: the program's file only (asked once per file
    name, the answer is cached in :data:`_SHOULD_TRACE_CACHE`)."""
    return _disposition(filename, filename == PROGRAM_FILE)


def _ignore(*args, **kwargs):
    return None


#: file name -> disposition, shared by every C-traced run of the child (the answers never change)
_SHOULD_TRACE_CACHE = {}


def c_tracer_available():
    """Whether coverage.py's C tracer could be loaded in this process."""
    return _CTRACER is not None


class CoverageTracer:
    """Executed lines and arcs of ``<program>`` frames from coverage.py's C tracer (a C
    trace function: a line event costs a C call and a set addition, no Python frame).

    coverage.py records an arc per line event, ``(previous line, line)``, plus
    ``(-first line of the code, line)`` when a frame starts and ``(line, -first line)`` when
    it returns or a generator yields; :meth:`result` keeps the positive pairs, which are the
    arcs of :class:`Tracer`, and their targets as lines.  One difference: a generator (or
    coroutine) resumed after a ``yield`` continues coverage's arc from the ``yield`` line,
    ``(yield line, next line)``, where :class:`Tracer` starts the resumed frame afresh and
    records only the line (the same lines; a superset of arcs).

    Used for traced runs without types of locals, ``counts`` or a line budget, of a program
    that cannot catch a MemoryError (its exception events are not seen here): the child
    picks :class:`Tracer` otherwise."""

    types = False
    counts = None

    def __init__(self):
        t = self.ctracer = _CTRACER()
        self.data = t.data = {}
        t.trace_arcs = True
        t.should_trace = _should_trace
        t.should_trace_cache = _SHOULD_TRACE_CACHE
        t.warn = _ignore
        t.lock_data = t.unlock_data = _ignore
        t.concur_id_func = None
        t.file_tracers = {}
        t.should_start_context = None
        t.switch_context = None
        t.check_include = None
        t.disable_plugin = None
        self.counting = False

    def start(self):
        """Install the C trace function (``PyEval_SetTrace``) for this thread."""
        self.ctracer.start()

    def stop(self):
        """Remove it (what was collected stays)."""
        self.ctracer.stop()

    def result(self, with_types=True):
        """``{"lines", "arcs", "types"}`` as :meth:`Tracer.result` gives them (``types`` empty).
        The lines and arcs of a recorded set seen before in this process are remembered
        (:data:`_DECODED`: a batch runs one program on many inputs, which mostly take the same
        paths)."""
        recorded = frozenset(self.data.get(PROGRAM_FILE, ()))
        known = _DECODED.get(recorded)
        if known is None:
            known = _decode(recorded)
            if len(_DECODED) < 256 and _DECODED_PAIRS[0] + len(recorded) <= DECODED_MAX_PAIRS:
                _DECODED[recorded] = known
                _DECODED_PAIRS[0] += len(recorded)
        return {"lines": list(known[0]), "arcs": list(known[1]), "types": {}}


#: the pairs coverage.py recorded for the program's file (a frozenset) -> ``(lines, arcs)``
#: (:meth:`CoverageTracer.result`); filled in the forked child, at most 256 entries holding
#: at most :data:`DECODED_MAX_PAIRS` pairs in all
_DECODED = {}
#: pairs held by :data:`_DECODED` (about 270 bytes each with their lines and arcs: a large
#: program's 256 distinct sets of 20,000 pairs would hold 1.4 GB of the child's 2 GB limit)
DECODED_MAX_PAIRS = 100_000
_DECODED_PAIRS = [0]


def _decode(recorded):
    """``(sorted lines, sorted arcs)`` of the pairs coverage.py's C tracer recorded."""
    lines, arcs = set(), set()
    for p in recorded:
        if p.__class__ is tuple:
            a, b = p
        else:  # coverage packs a pair into an int (tracer.c, CTracer_record_pair)
            a, b = p & 0xFFFFFFF, (p >> 28) & 0xFFFFFFF
            if p & (1 << 56):
                a = -a
            if p & (1 << 57):
                b = -b
        if b > 0:
            lines.add(b)
            if a > 0:
                arcs.add((a, b))
    return sorted(lines), sorted(arcs)


#: line events of a budgeted run (``max_lines``) after which :class:`Tracer` looks for a
#: cycle (:meth:`Tracer.look_for_cycle`), and again after the second; then no more
CYCLE_CHECKS = (2_000, 12_000)
#: line events a look watches for the sampled state to come back
CYCLE_WINDOW = 400
#: a cycle ends the run only when the whole run, at the cycle's own cost per line, would
#: reach its line budget within this share of its CPU and wall-clock limits
CYCLE_TIME_SHARE = 0.5
#: values of a state key at most (a larger state is not compared)
CYCLE_MAX_NODES = 2_000

_process_time = time.process_time
_perf = time.perf_counter
_FUNCTION = type(lambda: None)


def frozen_key(value, budget):
    """A key equal for two values exactly when they are the same immutable value of the
    same types all the way down (``True`` is not ``1``, ``-0.0`` is not ``0.0``, NaNs by
    their bits), or ``None`` when ``value`` is (or holds) anything else: a mutable or
    unknown object, a ``frozenset`` (two equal ones may iterate in different orders), more
    than ``budget[0]`` nodes.  Runs no program code (exact builtin types only)."""
    budget[0] -= 1
    if budget[0] < 0:
        return None
    t = value.__class__
    if t is str or t is int or t is bool or t is bytes or value is None:
        return (t, value)
    if t is float:
        return (t, value.hex())
    if t is complex:
        return (t, value.real.hex(), value.imag.hex())
    if t is tuple:
        out = [t]
        for item in value:
            k = frozen_key(item, budget)
            if k is None:
                return None
            out.append(k)
        return tuple(out)
    return None


def state_key(frame, accumulators=frozenset()):
    """What the rest of a run of ``frame`` (the program's only frame on the stack, at a line
    event where its value stack is empty: :meth:`Tracer.look_for_cycle`) can depend on,
    as a comparable key: its position, its locals and the program's module globals, or
    ``None`` when any of them is not an immutable value (:func:`frozen_key`) -- a global
    may also be a function of the program without a closure whose defaults are immutable
    values.  Names starting with ``__`` are the harness's (a program that spells ``__``
    is never looked at).  A local of ``accumulators`` (:func:`~.child.cycle_functions`:
    read only to add to or subtract from itself something that reads no accumulator, or
    to return it) counts by its type only, which must be ``int`` or ``float``: its value
    changes nothing else, and the type of ``x + e`` of those depends on the types alone."""
    budget = [CYCLE_MAX_NODES]
    items = [frame.f_lasti]
    for name, value in frame.f_locals.items():
        if name in accumulators:
            t = value.__class__
            if t is not int and t is not float:
                return None
            items.append((name, t))
            continue
        k = frozen_key(value, budget)
        if k is None:
            return None
        items.append((name, k))
    items.append(None)
    for name, value in frame.f_globals.items():
        if name.startswith("__"):
            continue
        if value.__class__ is _FUNCTION:
            if value.__closure__ is not None or value.__kwdefaults__ is not None \
                    or frozen_key(value.__defaults__, budget) is None:
                return None
            items.append((name, id(value)))
            continue
        k = frozen_key(value, budget)
        if k is None:
            return None
        items.append((name, k))
    return tuple(items)


class Tracer:
    """Collects executed lines, arcs and observed local types of ``<program>`` frames.

    Each traced frame gets its own local trace function (a closure holding the frame's
    previous line), so a line event costs two tuples and two C-level set additions: the arc
    ``(previous line, line)`` and a snapshot ``(names..., types...)`` of ``frame.f_locals``
    (a loop revisits the same few snapshots).  Lines are the arcs' targets; snapshots are
    split into ``(local name, type)`` pairs and type names computed once per distinct type
    at the end (:meth:`result`), not per event.

    ``max_lines``: a budget of line events (``None``: unlimited); the event past it stops
    the program as a timeout would (:func:`~.execution.stop_out_of_lines`).  Unlike a time limit it does
    not depend on the machine or its load.

    ``cycles``: with ``max_lines``, ``({(function name, first line): accumulators},
    wall-clock limit in seconds, CPU limit in seconds or None)``: a run that goes round in a
    cycle in one of those functions is stopped as the budget would stop it, where it found
    the cycle (:meth:`look_for_cycle`); ``None``: never.

    ``types``: collect the ``(local, type)`` pairs (``False``: lines and arcs only, every
    frame gets the cheaper module-level local trace function).

    ``sparse_types``: take a frame's snapshot only at the line events (and the ``return``)
    that follow its first line event or a line binding a local (:func:`binding_lines`;
    every event for code with cell or free variables).  Between two line events of a frame
    only the previous line's instructions run (instructions without a line number aside,
    which bind nothing but an ``except ... as`` name's cleanup ``None`` before deleting it,
    never visible at a line event), so a snapshot after a line that binds no local holds
    the same ``(local, type)`` pairs as the one before it -- unless an object's class was
    assigned meanwhile (``obj.__class__ = C``, from any call): the child asks for sparse
    snapshots only for programs that spell none of its reach words (``__``, ``setattr``,
    ``getattr``, ``import``, ``exec``... :data:`~.child._REACH_WORDS`).  The result is the
    same pairs at a fraction of the snapshots (about half the line events of a loop bind
    nothing: ``while``/``if`` tests, calls for effect).

    ``module_types``: also collect the ``(name, type)`` pairs of the module frame (its
    globals), under the qualname ``<module>``, at the line events that start one of the
    module's own ``for`` loops (:func:`for_lines`: its iterable and ``range`` bounds are
    evaluated next): a script's (a ``stdin`` request's) module-level names are its own
    variables, and the loop transforms ask for their types where its loops start.  Only
    there, because a snapshot of the whole namespace at every module line costs 2-4 times
    the traced run of a script whose loops are at module level.

    ``counts``: also count, while :attr:`counting` is true (the child sets it for the call
    of the entry point, not for the module body), the line events per line number of the
    program's frames and the deepest nesting of the program's function frames
    (comprehension, generator-expression and module frames do not count; a generator's
    every resumption is a call).  Lines, arcs and counts only: ``types`` is then ignored."""

    def __init__(self, max_lines=None, types=True, counts=False, module_types=False, hand_over_after=None,
                 sparse_types=False, cycles=None):
        self.types = types and not counts
        self.sparse_types = sparse_types
        self.module_types = module_types
        self.counts = {} if counts else None
        self.counting = False
        self.depth = [0, 0]  # current, deepest
        self.arcs = set()
        self.pairs = {}  # code object -> set of snapshots (names..., types...) of its locals
        #: code object -> the maker of its frames' local trace functions (:meth:`_glob`)
        self.makers = {}
        self.last = (None, None)  # (code object, maker) of the last frame traced
        self.tick = itertools.count(1)
        self.line_budget = max_lines if max_lines else NO_LIMIT
        # the line event past which the C tracer takes over (types sampled up to there)
        self.hand_over_after = hand_over_after if hand_over_after and not max_lines and not counts \
            and _CTRACER is not None else None
        self.max_lines = min(self.line_budget, self.hand_over_after or NO_LIMIT)
        #: the :class:`CoverageTracer` that took over (``None``: this tracer traced the whole run)
        self.handed = None
        #: a hand-over is due (past :attr:`hand_over_after` line events, not done yet)
        self.handing = self.hand_over_after is not None
        #: ``({(function name, first line): accumulators}, wall-clock limit, CPU limit or
        #: None)`` of a budgeted run whose
        #: cycles may end it early (:meth:`look_for_cycle`), else ``None``
        self.cycles = cycles if cycles is not None and max_lines and not counts else None
        #: the line event whose count passes ``limit[0]`` calls :meth:`over` (the budget, or
        #: the next look for a cycle); one list read by every frame's trace function
        self.limit = [self.max_lines]
        self.look = None  # (frame, f_lasti, state key, line count, CPU time, wall time) of a look
        if self.cycles is not None:
            self.limit[0] = min(self.max_lines, CYCLE_CHECKS[0])
            self.start = (_process_time(), _perf())

    def keep(self):
        """Trace the whole run here, no hand-over (call before the run starts: the local
        trace functions compare the line count with :attr:`limit`)."""
        self.hand_over_after = None
        self.handing = False
        self.max_lines = self.line_budget
        if self.cycles is None:
            self.limit[0] = self.max_lines

    def over(self, frame):
        """The line event past :attr:`max_lines`: hand over to the C tracer when the request
        allows it (:meth:`hand_over`; returns ``None``, the local trace function's result),
        else the line budget is spent (:func:`~.execution.stop_out_of_lines` raises)."""
        if self.handing:
            return self.hand_over(frame)
        if self.cycles is not None:
            at = self.limit[0] + 1  # this line event's count: every event past limit[0] comes here
            if at <= self.line_budget:
                return self.look_for_cycle(frame, at)
        stop_out_of_lines()

    def look_for_cycle(self, frame, at):
        """End a budgeted run that can only go round in a cycle until its budget stops it,
        as that stop would (:func:`~.execution.stop_out_of_lines`), where the budget would
        otherwise be spent for nothing: the rest of the run would record no line, arc or
        type of local that it has not recorded, and end as a timeout with the budget's note.

        At a line event past one of :data:`CYCLE_CHECKS`, the state of ``frame`` is sampled
        when it is the program's only frame on the stack and its function is one of
        ``cycles[0]`` (the child's static test, :func:`~.child.cycle_functions`: no ``for``,
        ``with``, ``try`` or ``match``, every statement on one line -- so a line event finds
        its value stack empty --, and nothing in the program that keeps state elsewhere):
        its position, its locals and the module's globals, all immutable values
        (:func:`state_key`; of an accumulator such as ``count += text.find(x)``, its type).  If the same frame comes back to the same instruction with an
        equal state within :data:`CYCLE_WINDOW` line events, the program is deterministic
        from there (a program that spells a reach word, ``print``, ``id``... is never looked
        at) and repeats that stretch for ever: what it would record is recorded, and it
        would not end before the budget -- unless its time limits came first, so the run
        is ended only when, at the cycle's measured cost per line, the whole budget would
        take less than :data:`CYCLE_TIME_SHARE` of its CPU and wall-clock limits.  Returns
        the frame's trace function (tracing goes on) or raises the budget's stop."""
        look = self.look
        if look is None:
            key = self._cycle_key(frame)
            if key is None:
                return self._next_look(frame, at)
            self.look = (frame, frame.f_lasti, key, at, _process_time(), _perf())
            self.limit[0] = at
            return frame.f_trace
        if at > look[3] + CYCLE_WINDOW:
            self.look = None
            return self._next_look(frame, at)
        self.limit[0] = at
        if frame is look[0] and frame.f_lasti == look[1] and self._cycle_key(frame) == look[2]:
            cpu, wall = _process_time(), _perf()
            lines, rest = at - look[3], self.line_budget - at
            _, wall_limit, cpu_limit = self.cycles
            share = CYCLE_TIME_SHARE
            if wall - self.start[1] + (wall - look[5]) * rest / lines < share * wall_limit and (
                    cpu_limit is None or cpu - self.start[0] + (cpu - look[4]) * rest / lines < share * cpu_limit):
                stop_out_of_lines()
            # too slow to be sure that the budget comes first: run on, no more looks
            self.look = None
            self.cycles = None
            self.limit[0] = self.line_budget
        return frame.f_trace

    def _next_look(self, frame, at):
        """No cycle found (yet): the next look at the next of :data:`CYCLE_CHECKS`, else none
        until the budget."""
        later = [c for c in CYCLE_CHECKS if c >= at and c < self.line_budget]
        self.limit[0] = later[0] if later else self.line_budget
        return frame.f_trace

    def _cycle_key(self, frame):
        """:func:`state_key` of ``frame`` if it may be sampled (see :meth:`look_for_cycle`),
        else ``None``."""
        code = frame.f_code
        accumulators = self.cycles[0].get((code.co_name, code.co_firstlineno))
        if accumulators is None:
            return None
        f = frame.f_back
        while f is not None:
            if f.f_code.co_filename == PROGRAM_FILE:
                return None
            f = f.f_back
        try:
            return state_key(frame, accumulators)
        except RecursionError:  # a deeply nested value near the recursion limit
            return None

    def hand_over(self, frame):
        """Stop this (Python) tracer at the current line event of ``frame`` and let
        coverage.py's C tracer record the rest of the run's lines and arcs: the types of
        locals are then those of the first :attr:`hand_over_after` line events (a bounded
        sample; the result says ``types_partial``), the lines and arcs stay exact.

        Every frame from the outermost ``<program>`` frame on the stack up to ``frame`` is
        announced to the C tracer, outermost first, so its own frame stack matches the
        interpreter's: a ``call`` event (coverage.py pushes the frame) and then a ``line``
        event at the frame's current line, which sets the line its next arc starts from.
        The ``call`` alone does not: coverage.py tells a resumed frame from a new one by the
        argument byte of the instruction at the frame's last offset (``RESUME``'s, in a frame
        being started), and a frame stopped in a call (at ``CALL``'s cache, or a
        no-argument instruction) reads as new, so the arc from its line to the next would
        be ``(-first line, next line)``, dropped (``def f(n): burn(n)`` / ``return 1``
        lost ``(line of burn(n), line of return)`` when the hand-over came inside ``burn``).
        What the announcements record is then cleared (``(-first line, line)`` or ``(line,
        line)`` pairs of lines the Python tracer has recorded already; the recorded sets
        are cleared in place, coverage.py holds them).

        The child hands over only for programs without generator or coroutine code
        (:func:`resumes_frames`): coverage.py continues a resumed frame's arcs from its
        ``yield``/``await`` line, the Python tracer starts it afresh.

        What needs Python frames (the C tracer's set-up, coverage.py's ``should_trace``
        answers for the files on the stack) is done before anything changes, so a
        ``RecursionError`` (a program recursing to within a few frames of the limit when
        the hand-over comes) leaves the Python tracer in place; the local trace functions
        catch it and the hand-over is tried again at the next line event
        (:attr:`handing`), where the Python tracer alone would have let the program go
        on.  Returns ``None`` (the frame's local trace function is the C tracer's now)."""
        ct = CoverageTracer()
        stack = []
        f = frame
        outer = depth = 0
        while f is not None:
            if f.f_code.co_filename == PROGRAM_FILE:
                outer = depth
            stack.append(f)
            depth += 1
            f = f.f_back
        del stack[outer + 1:]
        stack.reverse()  # outermost first
        cache = _SHOULD_TRACE_CACHE
        for f in stack:
            name = f.f_code.co_filename
            if name not in cache:
                cache[name] = _should_trace(name, f)
        # from here on only C calls: no RecursionError
        _settrace(None)
        announce = ct.ctracer
        # a time limit passing from here on stops the C tracer (stop(), from the child's
        # budget_stopper) ...
        self.handed = ct
        self.handing = False
        announce.start()
        for f in stack:
            f.f_trace = None
            announce(f, "call", None)
            announce(f, "line", None)
        for recorded in ct.data.values():
            recorded.clear()
        if STATE.coverage_partial:
            # ... but a limit that passed during the hand-over (its stop ran between two of
            # these calls) did not stop it for good: a ``call`` announcement installs
            # coverage.py's tracer again (tracer.c, CTracer_call)
            announce.stop()
        return None

    def stop(self):
        """Stop the C tracer that took over, if one did (``sys.settrace`` is the caller's)."""
        if self.handed is not None:
            self.handed.stop()

    def glob(self, frame, event, arg):
        try:
            code = frame.f_code
            last = self.last
            if last[0] is code:  # a recursion, or a function called again and again
                return last[1]()
            if code.co_filename != PROGRAM_FILE:
                return None
            make = self.makers.get(code)
            if make is None:
                return self._glob(code)
            self.last = (code, make)
            return make()
        except MemoryError:  # the tracer's own allocation failed (tracing stops)
            STATE.memory_raised = True
            raise

    def _glob(self, code):
        """The local trace function of a new frame of ``code`` (a ``<program>`` code object
        without a maker yet).  A function frame's (and, without ``module_types``, a
        module frame's) comes from a maker made once per code object (kept
        in :attr:`makers`), so a frame costs one closure (its own previous line) instead of
        the per-code set-up (the snapshot set, the binding lines, a dozen cells): a
        recursion 10,000 frames deep allocated some 20 objects the collector tracks per
        frame, and its collections cost more than the tracing itself.  The makers are
        keyed by the code object, as :attr:`pairs` is (code objects that compare equal
        share one snapshot set, and have the same binding lines)."""
        if self.counts is not None:
            return self._counting_local(code)
        if code.co_name == "<module>" and self.module_types and self.types:
            return self._module_local(code)
        # the maker is made here, not in a method of its own, to keep the Python frames
        # the tracer adds on top of a program's stack as few as they were: at the first
        # frame of a code object four with sparse snapshots (binding_names), as before,
        # three otherwise (the maker's call; two before), and two at every other frame
        arcs_add = self.arcs.add
        tick, limit, over = self.tick, self.limit, self.over
        tracer = self
        if code.co_name == "<module>" or not self.types:
            def make():
                prev = None

                def local(frame, event, arg):
                    nonlocal prev
                    try:
                        if event == "line":
                            ln = frame.f_lineno
                            arcs_add((prev, ln))
                            prev = ln
                            if next(tick) > limit[0]:
                                try:
                                    return over(frame)
                                except RecursionError:
                                    if not tracer.handing:
                                        raise  # the line budget's stop, too deep to be called
                                    # too deep for the hand-over: go on, try again at the next line
                        elif event == "exception" and issubclass(arg[0], MemoryError):
                            STATE.memory_raised = True
                    except MemoryError:  # the tracer's own allocation failed (tracing stops)
                        STATE.memory_raised = True
                        raise
                    return local
                return local
            return self._keep_maker(code, make)()
        snaps = self.pairs.get(code)
        if snaps is None:
            snaps = self.pairs[code] = set()
        snaps_add = snaps.add
        # sparse_types: the lines after which the locals may hold a new (name, type) pair,
        # and the names they bind; None: every line event takes a snapshot
        binds = self.binding_names(code) if self.sparse_types else None
        get_names = binds.get if binds is not None else None

        # one flat tuple per distinct (names..., types...) snapshot of the locals: a loop
        # revisits the same few snapshots, which cost one tuple and one set lookup each.
        # With sparse_types, after the frame's first line event only the locals the previous
        # line binds are read, as (name, type) pairs: between two line events of a frame
        # only the previous line's instructions run, so every other local holds the value
        # (and type) a snapshot or pair recorded already. The snapshot code is written out
        # twice below (line and return events), not called: this closure runs on every line
        # event of a typed run, where a call per event costs more than the snapshot itself
        def make():
            prev = None

            def local(frame, event, arg):
                nonlocal prev
                try:
                    if event == "line":
                        ln = frame.f_lineno
                        arcs_add((prev, ln))
                        if binds is None or prev is None:
                            fl = frame.f_locals
                            snaps_add((*fl, *map(type, fl.values())))
                        else:
                            bound = get_names(prev)
                            if bound is not None:
                                fl = frame.f_locals
                                for name in bound:
                                    value = fl.get(name, _UNBOUND)
                                    if value is not _UNBOUND:
                                        snaps_add((name, type(value)))
                        prev = ln
                        if next(tick) > limit[0]:
                            try:
                                return over(frame)
                            except RecursionError:
                                if not tracer.handing:
                                    raise  # the line budget's stop, too deep to be called
                                # too deep for the hand-over: go on, try again at the next line
                    elif event == "return":
                        if binds is None or prev is None:
                            fl = frame.f_locals
                            snaps_add((*fl, *map(type, fl.values())))
                        else:
                            bound = get_names(prev)
                            if bound is not None:
                                fl = frame.f_locals
                                for name in bound:
                                    value = fl.get(name, _UNBOUND)
                                    if value is not _UNBOUND:
                                        snaps_add((name, type(value)))
                    elif event == "exception" and issubclass(arg[0], MemoryError):
                        STATE.memory_raised = True
                except MemoryError:  # the tracer's own allocation failed (tracing stops)
                    STATE.memory_raised = True
                    raise
                return local
            return local
        return self._keep_maker(code, make)()

    def _keep_maker(self, code, make):
        """Keep ``make`` as the maker of ``code``'s frames (:attr:`makers`, :attr:`last`);
        returns it."""
        if len(self.makers) < MAKERS_MAX:
            self.makers[code] = make
        self.last = (code, make)
        return make

    def binding_names(self, code):
        """:func:`binding_names` of ``code``, cached for the child's life (:data:`_BINDING`)."""
        got = _BINDING.get(id(code))
        if got is not None and got[0] is code:
            return got[1]
        lines = binding_names(code)
        if len(_BINDING) < BINDING_MAX:
            _BINDING[id(code)] = (code, lines)
        return lines

    def _module_local(self, code):
        """The local trace function of a module frame with ``module_types``: arcs, and a
        snapshot of the globals where one of its ``for`` loops starts."""
        arcs_add = self.arcs.add
        tick, limit, over = self.tick, self.limit, self.over
        tracer = self
        snaps = self.pairs.get(code)
        if snaps is None:
            snaps = self.pairs[code] = set()
        snaps_add = snaps.add
        loops, iterations = for_lines(code)
        prev = None

        def local(frame, event, arg):
            nonlocal prev
            try:
                if event == "line":
                    ln = frame.f_lineno
                    arcs_add((prev, ln))
                    prev = ln
                    if ln in loops and frame.f_lasti not in iterations:
                        fl = frame.f_locals
                        snaps_add((*fl, *map(type, fl.values())))
                    if next(tick) > limit[0]:
                        try:
                            return over(frame)
                        except RecursionError:
                            if not tracer.handing:
                                raise  # the line budget's stop, too deep to be called
                            # too deep for the hand-over: go on, try again at the next line
                elif event == "exception" and issubclass(arg[0], MemoryError):
                    STATE.memory_raised = True
            except MemoryError:  # the tracer's own allocation failed (tracing stops)
                STATE.memory_raised = True
                raise
            return local
        return local

    def _counting_local(self, code):
        """The local trace function of a frame of ``code`` with ``counts``."""
        arcs_add = self.arcs.add
        tick, limit, over = self.tick, self.limit, self.over
        counts, depth = self.counts, self.depth
        entered = self.counting and code.co_name not in NOT_CALLS
        if entered:
            depth[0] += 1
            if depth[0] > depth[1]:
                depth[1] = depth[0]
        prev = None
        tracer = self

        def local(frame, event, arg):
            nonlocal prev
            try:
                if event == "line":
                    ln = frame.f_lineno
                    arcs_add((prev, ln))
                    prev = ln
                    if tracer.counting:
                        counts[ln] = counts.get(ln, 0) + 1
                    if next(tick) > limit[0]:
                        try:
                            return over(frame)
                        except RecursionError:
                            if not tracer.handing:
                                raise  # the line budget's stop, too deep to be called
                            # too deep for the hand-over: go on, try again at the next line
                elif event == "return":
                    if entered:
                        depth[0] -= 1
                elif event == "exception" and issubclass(arg[0], MemoryError):
                    STATE.memory_raised = True
            except MemoryError:  # the tracer's own allocation failed (tracing stops)
                STATE.memory_raised = True
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
        lines = {b for _, b in arcs}
        arcs = {(a, b) for a, b in arcs if a is not None}
        if self.handed is not None:
            rest = self.handed.result()
            lines.update(rest["lines"])
            arcs.update(map(tuple, rest["arcs"]))
        out = {
            "lines": sorted(lines),
            "arcs": sorted(arcs),
            "types": {q: {n: sorted(ts) for n, ts in sorted(t.items())} for q, t in sorted(types.items())},
        }
        if self.handed is not None and self.types:
            out["types_partial"] = True
        if self.counts is not None:
            out["line_counts"] = sorted(self.counts.items())
            out["max_call_depth"] = self.depth[1]
        return out
