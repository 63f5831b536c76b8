"""Optional symbolic backend: CrossHair's behaviour diffing on an (original, rewritten) pair.

CrossHair (https://github.com/pschanely/CrossHair, ``pip install codemorph[crosshair]``)
explores the paths of a Python function with symbolic inputs backed by Z3;
``crosshair diffbehavior`` (:func:`crosshair.diff_behavior.diff_behavior`) searches for
arguments on which two functions return different values, raise different exceptions or
leave their arguments in different states.  Here it gets the two entry functions, with
type annotations inferred from the row's seed input (:func:`infer_annotation`), for a
bounded search.  :func:`crosshair_inputs` runs CrossHair's path-cover search
(:func:`crosshair.path_cover.path_cover`) on one function in the same guarded process: the
inputs it reports are the CrossHair strategy of ``codemorph perturb``
(:func:`codemorph.perturb.symbolic.crosshair_candidates`).  This module is the one
CrossHair runner of codemorph.

The search runs the (untrusted) programs, never in the host process: CrossHair needs
``ctypes`` and threads, which codemorph's sandbox forbids, so it runs as a separate Python
subprocess in its own session, in a fresh temporary directory (its working directory and
the only place it is told about), with an address-space limit, a CPU-time limit and a hard
wall-clock limit (``seconds``; the whole process group is killed when it expires).
CrossHair's own budget is 70% of that limit.  Once CrossHair and Z3 are loaded, the search
process installs the sandbox's audit-hook refusals (:mod:`codemorph.sandbox.guard`: processes,
sockets, signals to other processes, resource limits, writes and file changes outside its
temporary directory) except ctypes, which Z3 calls on every operation; a search in which a
program tried a refused operation reports an error and its result is not used.  Programs
that :func:`codemorph.determinism.nondeterminism_source` flags (the clock, randomness, the
process, the file system, ctypes, ...) are not handed to CrossHair at all.
Every counterexample it reports is re-run on both programs in the sandbox with the ordinary
differential check, and only a confirmed difference is reported; every input the path-cover
search reports is re-run in the sandbox by its caller.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from typing import Any, Sequence

from codemorph.sandbox.determinism import nondeterminism_source
from codemorph.errors import InputError
from codemorph.inputs import format_args, parse_args
from codemorph.engine.program import Program
from codemorph.sandbox.pool import Sandbox
from codemorph.verification.differential import DEFAULT_INPUTS, MIN_INPUTS, Verdict, check, make_baseline

__all__ = ["CrosshairResult", "crosshair_available", "crosshair_diff", "crosshair_inputs", "check_crosshair",
           "infer_annotation"]

_MARK = "\x1e__diffbehavior__"

#: the search process's start: CrossHair (and, through it, Z3) is imported, then the sandbox's
#: guard (:mod:`codemorph.sandbox.guard`) is installed as an audit hook; the ``imports``
#: placeholder takes the CrossHair imports of the search (indented), ``mark`` the output marker
_PRELUDE = r'''
import json, sys
MARK = %(mark)r
out = sys.stdout
try:
    from crosshair.core_and_libs import standalone_statespace  # noqa: F401 (registers the plugins)
    from crosshair.fnutil import FunctionInfo
    from crosshair.options import DEFAULT_OPTIONS
%(imports)s
except Exception as e:
    out.write(MARK + json.dumps({"error": "crosshair not importable: %%s" %% e}) + "\n")
    raise SystemExit(0)
import os
from codemorph.sandbox.guard import PATH_EVENTS, REFUSED_EVENTS, REFUSED_PREFIXES, opens_for_writing, sqlite_paths
ROOT = os.path.realpath(os.getcwd())
refusals = []
def _inside(p):
    if isinstance(p, int):
        return True
    try:
        p = os.fspath(p)
        if isinstance(p, bytes):
            p = p.decode("utf-8", "surrogateescape")
        if p == "/dev/null":
            return True
        full = os.path.realpath(os.path.join(os.getcwd(), p))
    except BaseException:
        return False
    return full == ROOT or full.startswith(ROOT + os.sep)
def _deny(event, what):
    refusals.append("%%s (%%s)" %% (what, event))
    raise PermissionError("codemorph: %%s is not allowed in the CrossHair search (%%s)" %% (what, event))
def _hook(event, args):
    # the sandbox's refusals (codemorph.sandbox.guard), except ctypes, which Z3 calls on every
    # operation (libz3 and CrossHair are loaded before this hook is installed)
    if event in REFUSED_EVENTS and not event.startswith("ctypes."):
        _deny(event, "this operation")
    if event == "open":
        if opens_for_writing(args) and not _inside(args[0]):
            _deny(event, "writing %%r outside the search's temporary directory" %% (args[0],))
    elif event == "sqlite3.connect":
        for p in sqlite_paths(args[0] if args else None):
            if not _inside(p):
                _deny(event, "opening the database %%r outside the search's temporary directory" %% (p,))
    elif event in PATH_EVENTS:
        for pos in PATH_EVENTS[event]:
            if pos < len(args) and not _inside(args[pos]):
                _deny(event, "changing %%r outside the search's temporary directory" %% (args[pos],))
    elif event == "os.kill":
        if args and args[0] not in (0, os.getpid()):
            _deny(event, "signalling another process")
    elif event.startswith(REFUSED_PREFIXES):
        _deny(event, "network access")
sys.addaudithook(_hook)
'''

#: the behaviour diffing of two programs (after :data:`_PRELUDE`)
_DIFF_BODY = r'''
fns = []
for i, src in enumerate((%(original)r, %(rewritten)r)):
    g = {"__name__": "__crosshair_%%d__" %% i}
    exec(compile(src, "<program>", "exec"), g)
    fn = g[%(entry)r]
    fn.__annotations__ = {k: eval(v, g) for k, v in %(anns)r.items()}
    fns.append(fn)
opts = DEFAULT_OPTIONS.overlay(per_condition_timeout=%(budget)r, per_path_timeout=max(0.25, %(budget)r / 8),
                               max_uninteresting_iterations=%(iterations)r)
from collections import Counter
opts.stats = Counter()
try:
    diffs = diff_behavior(FunctionInfo.from_fn(fns[0]), FunctionInfo.from_fn(fns[1]), opts,
                          ExceptionEquivalenceType.%(policy)s)
except BaseException as e:
    out.write(MARK + json.dumps({"error": "%%s: %%s" %% (type(e).__name__, e)}) + "\n")
    raise SystemExit(0)
if refusals:
    out.write(MARK + json.dumps({"error": "the programs tried %%s, which the search process refuses; "
                                          "the search's result is not used" %% refusals[0]}) + "\n")
    raise SystemExit(0)
if isinstance(diffs, str):
    out.write(MARK + json.dumps({"error": diffs}) + "\n")
else:
    for d in diffs:
        out.write(MARK + json.dumps({"args": d.args}) + "\n")
out.write(MARK + json.dumps({"done": True, "paths": opts.stats.get("num_paths", 0),
                             "exhausted": opts.stats.get("exhaustion", 0) > 0}) + "\n")
'''

#: the path-cover search of one program (after :data:`_PRELUDE`): one marked line per path
#: with the realised arguments, printed at once so that a run stopped by the wall-clock
#: limit keeps what it found
_COVER_BODY = r'''
g = {"__name__": "__crosshair_target__"}
exec(compile(%(source)r, "<program>", "exec"), g)
fn = g[%(entry)r]
fn.__annotations__ = {k: eval(v, g) for k, v in %(anns)r.items()}
def emit(bound):
    text = format_boundargs(bound)
    try:
        out.write(MARK + json.dumps({"args": text}) + "\n")
        out.flush()
    except Exception:
        pass
    return text
opts = DEFAULT_OPTIONS.overlay(per_path_timeout=max(0.25, %(budget)r / 8), per_condition_timeout=%(budget)r,
                               max_uninteresting_iterations=50)
try:
    path_cover(FunctionInfo.from_fn(fn), opts, CoverageType.OPCODE, arg_formatter=emit)
except BaseException as e:
    out.write(MARK + json.dumps({"error": "%%s: %%s" %% (type(e).__name__, e)}) + "\n")
    raise SystemExit(0)
if refusals:
    out.write(MARK + json.dumps({"error": "the program tried %%s, which the search process refuses; "
                                          "the search's result is not used" %% refusals[0]}) + "\n")
    raise SystemExit(0)
out.write(MARK + json.dumps({"done": True}) + "\n")
'''
_DIFF_IMPORTS = "    from crosshair.diff_behavior import diff_behavior, ExceptionEquivalenceType"
_COVER_IMPORTS = "    from crosshair.path_cover import path_cover, CoverageType, format_boundargs"
#: the two search processes' scripts (``%`` templates: ``mark`` plus the body's fields)
_DRIVER = _PRELUDE.replace("%(imports)s", _DIFF_IMPORTS) + _DIFF_BODY
_COVER_DRIVER = _PRELUDE.replace("%(imports)s", _COVER_IMPORTS) + _COVER_BODY


def crosshair_available() -> bool:
    """Whether the ``crosshair`` package (``pip install codemorph[crosshair]``) is importable."""
    return importlib.util.find_spec("crosshair") is not None


def infer_annotation(value: Any) -> str | None:
    """A type annotation (source text) for a seed value (a Python literal's value): ``int``,
    ``str``, ``list[int]``, ``dict[str, list[int]]``...; ``None`` when no annotation fits
    (mixed element types are given as a union)."""
    if value is None:
        return "None"
    if isinstance(value, (bool, int, float, str, bytes)):
        return type(value).__name__
    if isinstance(value, (list, set, frozenset)):
        inner = _union(value)
        return f"{type(value).__name__}[{inner}]" if inner else type(value).__name__
    if isinstance(value, tuple):
        parts = [infer_annotation(v) for v in value]
        if any(p is None for p in parts):
            return "tuple"
        return f"tuple[{', '.join(parts)}]" if parts else "tuple[()]"
    if isinstance(value, dict):
        k, v = _union(value.keys()), _union(value.values())
        return f"dict[{k}, {v}]" if k and v else "dict"
    return None


def _union(values: Any) -> str | None:
    anns = []
    for v in values:
        a = infer_annotation(v)
        if a is None:
            return None
        if a not in anns:
            anns.append(a)
    if not anns:
        return None
    return " | ".join(anns) if len(anns) > 1 else anns[0]



@dataclass(frozen=True)
class CrosshairResult:
    """What the CrossHair search found.

    Attributes:
        status: ``"differs"`` (a counterexample confirmed in the sandbox), ``"no-difference"``
            (the bounded search found none, or none that the sandbox confirmed),
            ``"unavailable"`` (CrossHair not installed, or no annotation fits the seed) or
            ``"error"`` (the search failed or ran out of wall-clock time).
        candidates: argument-list literals CrossHair reported as differing.
        verdict: the sandbox's verdict on the first confirmed counterexample (``"differs"``).
        paths: execution paths CrossHair explored; ``exhausted``: every path was explored.
        reason: a human-readable summary.
    """

    status: str
    candidates: tuple[str, ...] = ()
    verdict: Verdict | None = None
    paths: int = 0
    exhausted: bool = False
    reason: str = ""


#: names of what reads or writes files: the sandbox refuses any file outside a run's work
#: directory, the search process only writes (CrossHair and Z3 read their own files)
_FILE_WORDS = re.compile(r"\b(?:open|io|sqlite3)\b")


def _not_searched(source: str) -> str | None:
    """Why CrossHair is not run on the program ``source``: ``nondeterminism_source``'s reason,
    or that it spells ``open``, ``io`` or ``sqlite3``; ``None`` when it may run."""
    why = nondeterminism_source(source)
    if why is None and _FILE_WORDS.search(source):
        why = f"may read files ({_FILE_WORDS.search(source).group(0)})"
    return why


def _that(why: str) -> str:
    """``nondeterminism_source``'s reason (``"it reads the clock (import time)"``) as a clause."""
    return why[3:] if why.startswith("it ") else why


def _annotations(program: Program, seed_input: str) -> dict[str, str] | None:
    import libcst as cst

    fn = next((s for s in program.module.body if isinstance(s, cst.FunctionDef)
               and s.name.value == program.entry_point), None)
    if fn is None:
        return None
    try:
        pos, kw = parse_args(seed_input)
    except InputError:
        return None
    params = [p.name.value for p in fn.params.params]
    if kw or len(params) != len(pos) or fn.params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) \
            or fn.params.kwonly_params or fn.params.posonly_params:
        return None
    anns = {}
    for name, value in zip(params, pos):
        a = infer_annotation(value)
        if a is None:
            return None
        anns[name] = a
    return anns


def _run_subprocess(driver: str, seconds: float, memory: int) -> tuple[str, str]:
    """Run ``driver`` in a new Python process (own session, temporary working directory,
    ``RLIMIT_AS`` of ``memory`` bytes, CPU limit) killed after ``seconds`` of wall-clock
    time; returns (stdout, status) with status ``"finished"``, ``"timeout"`` or ``"exit N"``."""
    def limit() -> None:  # runs in the child before exec
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        cpu = int(seconds) + 2
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))

    with tempfile.TemporaryDirectory(prefix="codemorph-crosshair-") as tmp:
        path = os.path.join(tmp, "driver.py")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(driver)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "TMPDIR": tmp,
               "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
        proc = subprocess.Popen([sys.executable, "-I", path], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=limit)
        try:
            out, _ = proc.communicate(timeout=seconds)
            status = "finished" if proc.returncode == 0 else f"exit {proc.returncode}"
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            status = "timeout"
    return out.decode("utf-8", "replace")[:1 << 20], status


def crosshair_diff(sandbox: Sandbox, original: Program, rewritten: Program, seed_input: str, *,
                   seconds: float = 10.0, iterations: int = 50,
                   exception_policy: str = "same-class") -> CrosshairResult:
    """Search for inputs on which ``original`` and ``rewritten`` differ with CrossHair.

    Args:
        sandbox: re-runs the counterexamples; its memory limit (at least 4 GiB) bounds the
            search subprocess.
        original, rewritten: the two programs (same entry point name).
        seed_input: the row's argument literal; parameter annotations are inferred from it.
        seconds: hard wall-clock limit of the search, seconds.
        iterations: CrossHair's ``max_uninteresting_iterations``.
        exception_policy: ``"same-class"`` or ``"same-class-and-message"`` (how CrossHair and
            the re-run compare exceptions).

    Returns:
        A :class:`CrosshairResult`.
    """
    for program in (original, rewritten):
        why = _not_searched(program.source)
        if why is not None:
            return CrosshairResult("unavailable", reason=f"CrossHair is not run on a program that {_that(why)}: "
                                                         "its search process has fewer guards than the sandbox")
    if not crosshair_available():
        return CrosshairResult("unavailable", reason="CrossHair is not installed (pip install codemorph[crosshair])")
    anns = _annotations(original, seed_input)
    if anns is None:
        return CrosshairResult("unavailable", reason="no type annotation can be inferred from the seed input")
    policy = "SAME_TYPE" if exception_policy == "same-class" else "TYPE_AND_MESSAGE"
    driver = _DRIVER % {"mark": _MARK, "original": original.source, "rewritten": rewritten.source,
                        "entry": original.entry_point, "anns": anns, "budget": max(0.5, seconds * 0.7),
                        "iterations": iterations, "policy": policy}
    stdout, status = _run_subprocess(driver, seconds, max(sandbox.limits.memory, 4 << 30))
    params = list(anns)
    candidates: list[str] = []
    done = None
    error = None
    for line in stdout.split("\n"):
        k = line.find(_MARK)
        if k < 0:
            continue
        try:
            d = json.loads(line[k + len(_MARK):])
        except ValueError:
            continue
        if "args" in d and isinstance(d["args"], dict):
            try:
                text = ", ".join(d["args"][p] for p in params)
                pos, kw = parse_args(text)
            except (KeyError, InputError):  # CrossHair made an object that is not a literal
                continue
            candidates.append(format_args(pos, kw))
        elif "done" in d:
            done = d
        elif "error" in d:
            error = d["error"]
    if done is None:
        why = error or f"the search did not finish ({status})"
        if not candidates:
            return CrosshairResult("error", reason=f"CrossHair: {why}")
    for text in dict.fromkeys(candidates):
        base = make_baseline(sandbox, original, [text], extra_inputs=0, check_hash_seed=False)
        v = check(sandbox, base, rewritten, exception_policy=exception_policy)
        if v.status == "differs":
            return CrosshairResult("differs", tuple(candidates), v, (done or {}).get("paths", 0),
                                   bool((done or {}).get("exhausted")),
                                   f"CrossHair counterexample confirmed in the sandbox: {v.reason}")
    paths = (done or {}).get("paths", 0)
    exhausted = bool((done or {}).get("exhausted"))
    return CrosshairResult("no-difference", tuple(candidates), None, paths, exhausted,
                           f"CrossHair found no confirmed difference ({paths} paths"
                           f"{', all explored' if exhausted else ''}"
                           f"{f'; {len(candidates)} unconfirmed candidates' if candidates else ''})")


def crosshair_inputs(program: Program, seed_args: tuple[list, dict], *, seconds: float = 10.0,
                     memory: int = 4 << 30) -> list[tuple[list, dict]]:
    """Inputs on which CrossHair's path-cover search (``CoverageType.OPCODE``) runs the entry
    function of ``program`` along distinct paths, in the guarded search process (the one
    :func:`crosshair_diff` uses: own session, temporary directory, the sandbox's guard but
    ctypes, ``RLIMIT_AS`` of ``memory`` bytes, hard wall-clock limit of ``seconds``; CrossHair
    gets 70% of it).  Parameter annotations are inferred from the seed
    (:func:`infer_annotation`).

    Args:
        program: the program (its entry function is searched).
        seed_args: ``(positional values, keyword values)`` of the row's input.
        seconds: wall-clock seconds for the whole search process.
        memory: address-space limit of the search process, bytes.

    Returns:
        ``(positional values, keyword values)`` pairs in the order CrossHair reported them
        (duplicates and arguments that are no literal dropped); ``[]`` when CrossHair is not
        installed, no annotation fits the seed, the program is one
        :func:`~codemorph.sandbox.determinism.nondeterminism_source` flags, or the program
        tried something the search process refuses.  Candidates only: the caller re-runs
        every one in the sandbox.
    """
    if _not_searched(program.source) is not None or not crosshair_available():
        return []
    import libcst as cst

    fn = next((s for s in program.module.body if isinstance(s, cst.FunctionDef)
               and s.name.value == program.entry_point), None)
    if fn is None:
        return []
    pos, kw = seed_args
    params = [p.name.value for p in fn.params.params]
    if len(params) != len(pos) or kw:
        return []
    anns = {}
    for name, value in zip(params, pos):
        a = infer_annotation(value)
        if a is None:
            return []
        anns[name] = a
    driver = _COVER_DRIVER % {"mark": _MARK, "source": program.source, "entry": program.entry_point,
                              "anns": anns, "budget": max(0.5, seconds * 0.7)}
    stdout, _ = _run_subprocess(driver, seconds, memory)
    out: list[tuple[list, dict]] = []
    for line in stdout.split("\n"):  # not splitlines(): it splits at \x1e too
        k = line.find(_MARK)
        if k < 0:
            continue
        try:
            d = json.loads(line[k + len(_MARK):])
        except ValueError:
            continue
        if "error" in d and "refuses" in str(d["error"]):
            return []
        if "args" not in d:
            continue
        try:
            args = parse_args(d["args"])
        except Exception:  # not a literal (CrossHair made an object): skip it
            continue
        if args not in out:
            out.append(args)
    return out


def check_crosshair(sandbox: Sandbox, original: Program, rewritten: Program, seed_inputs: Sequence[str], *,
                    seconds: float = 10.0, exception_policy: str = "same-class", prove: bool = False,
                    extra_inputs: int = DEFAULT_INPUTS - 1, seed: int = 0, min_inputs: int = MIN_INPUTS) -> Verdict:
    """Differential testing (:func:`codemorph.verification.check`) followed, when it finds no
    difference, by the CrossHair search (:func:`crosshair_diff`) on the first seed input.
    ``min_inputs``: see :func:`~codemorph.verification.judge` (a CrossHair search that finds
    nothing does not lift a ``"weak"`` verdict).

    Returns:
        The testing verdict when it is ``"differs"``; ``"differs"`` with the confirmed
        CrossHair counterexample; otherwise the testing verdict with the search's summary
        appended to its ``reason``.
    """
    base = make_baseline(sandbox, original, list(seed_inputs), extra_inputs=extra_inputs, seed=seed,
                         min_inputs=min_inputs)
    verdict = check(sandbox, base, rewritten, exception_policy=exception_policy, prove=prove, min_inputs=min_inputs)
    if verdict.status == "differs" or not seed_inputs:
        return verdict
    res = crosshair_diff(sandbox, original, rewritten, seed_inputs[0], seconds=seconds,
                         exception_policy=exception_policy)
    if res.status == "differs" and res.verdict is not None:
        return replace(res.verdict, reason=res.reason)
    return replace(verdict, reason=f"{verdict.reason}; {res.reason}" if verdict.reason else res.reason)
