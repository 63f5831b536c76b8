"""What tracing costs: the same program run plain, in the sandbox untraced, traced for lines
and arcs (coverage.py's C tracer, and the Python tracer for comparison) and traced with the
types of locals, side by side.

Programs: a loop of a million iterations (``--n``) and a few CRUXEval programs on their own
inputs.  For each program and mode, ``--rounds`` rounds alternate the modes; a round's
figure is the program's own time (module body + call): for the plain run, measured by a
fresh ``python -I`` interpreter that runs the program ``--repeat`` times and reports the
median; in the sandbox, :attr:`Outcome.duration` (the child's own measure of the same span)
of a batch of ``--repeat`` identical requests, median.  Printed: medians over rounds in
milliseconds and ratios to plain.  The sandbox columns also give the whole cost per
execution (batch wall time / requests: the fork, the reset, the result's fingerprint,
the relay to the host), which dominates for microsecond programs.

The ``SlipCover`` column is SlipCover (PyPI ``slipcover``, optional: ``n/a`` when it is not
installed) in a fresh plain interpreter: the program's AST pre-instrumented for branches
(``slipcover.branch.preinstrument``), compiled and its code objects instrumented once (not
timed; the time, in an interpreter that has instrumented a program before, is printed on
the ``instrument once`` line), then every run gets fresh
probes (each probe records its line or branch only on its first hit, and there is no way
to reset one; a run's own lines and branch arcs need new ones: the code objects are
rebuilt with new probe constants, ``CodeType.replace``), timed with the run.  What it
records: executed lines and branch arcs ``(if/for/while/match line, successor line)``, not
every arc.  Not used by the sandbox (README, "Why lines and arcs stay above 3x").

The ``tracing floor`` column is the plain interpreter with tracing switched on and a global
trace function that returns ``None``: every line event goes through the interpreter's
tracing path and a C-level trampoline that returns at once.  No tracer built on
``sys.settrace``/``PyEval_SetTrace`` (coverage.py's C tracer included) can cost less on this
interpreter, whatever it records.

Usage::

    python benchmarks/bench_tracing.py [--n 1000000] [--rounds 5] [--repeat 5] [--cruxeval 4]
    python benchmarks/bench_tracing.py --slipcover-check
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from codemorph.sandbox import ExecRequest, Limits, Outcome, Sandbox

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"
if not DATA.exists():
    DATA = Path("/work/shared/data/cruxeval/cruxeval.jsonl")

LOOP = ("def f(n):\n"
        "    total = 0\n"
        "    for i in range(n):\n"
        "        if i % 3:\n"
        "            total += i\n"
        "        else:\n"
        "            total -= 1\n"
        "    return total\n")

#: CRUXEval rows with a loop, chosen for variety (list building, string scanning, dict work)
CRUX_IDS = ("sample_0", "sample_16", "sample_33", "sample_104", "sample_250", "sample_500")

_PLAIN = r"""
import json, sys, time
code, args, repeat, floor = json.loads(sys.stdin.read())
obj = compile(code, "<program>", "exec")
argcode = compile("(lambda *a, **k: (a, k))(" + args + ")", "<input>", "eval")
times = []
if floor:
    # the interpreter's tracing mode with a trace function that records nothing: every
    # line event reaches C-level dispatch and returns at once (no frame has an f_trace)
    sys.settrace(lambda frame, event, arg: None)
for _ in range(repeat):
    g = {"__name__": "__codemorph_program__"}
    t0 = time.perf_counter()
    exec(obj, g)
    a, k = eval(argcode, g)
    g["f"](*a, **k)
    times.append(time.perf_counter() - t0)
times.sort()
print(times[len(times) // 2])
"""

_SLIPCOVER_INSTRUMENT = r"""
import ast, json, sys, time, types
import slipcover.branch as br, slipcover.bytecode as bc
from slipcover import probe
from slipcover.slipcover import findlinestarts
FILE, NEVER = "<program>", 2 ** 31 - 1  # a probe that never de-instruments itself

class Sink:  # what a probe records into: newly_seen[file name] (a set)
    pass

sink = Sink()

def instrument(co):
    # Slipcover.instrument's loop (slipcover.py), keeping where each probe constant is
    ed = bc.Editor(co)
    kids = []
    for i, c in enumerate(co.co_consts):
        if isinstance(c, types.CodeType):
            nc, plan = instrument(c)
            ed.set_const(i, nc)
            kids.append((i, plan))
    signal = ed.add_const(probe.signal)
    spots = list(findlinestarts(co)) + list(ed.find_const_assignments(br.BRANCH_NAME))
    spots.sort(key=lambda x: (x[0], len(x)))
    slots, delta = [], 0
    for spot in spots:
        if len(spot) == 2:  # a line start
            offset, line = spot
            i = ed.add_const(probe.new(sink, FILE, line, NEVER))
            slots.append((i, line))
            delta += ed.insert_function_call(offset + delta, signal, (i,))
        else:  # a branch marker (_slipcover_branches = (from, to)), replaced by its probe
            begin, end, i = spot
            label = co.co_consts[i]
            ed.set_const(i, probe.new(sink, FILE, label, NEVER))
            slots.append((i, label))
            delta += ed.insert_function_call(begin + delta, signal, (i,), repl_length=end - begin)
    return ed.finish(), (slots, kids)

def fresh(co, plan):
    slots, kids = plan
    consts = list(co.co_consts)
    for i, label in slots:
        consts[i] = probe.new(sink, FILE, label, NEVER)
    for i, p in kids:
        consts[i] = fresh(consts[i], p)
    return co.replace(co_consts=tuple(consts))

def seen():
    got = sink.newly_seen[FILE]
    return (sorted(x for x in got if x.__class__ is int),
            sorted(x for x in got if x.__class__ is tuple and x[1] != 0))
"""

_SLIPCOVER = _SLIPCOVER_INSTRUMENT + r"""
code, args, repeat = json.loads(sys.stdin.read())
# warm (a worker would instrument programs in a process that has done it before)
warm = "def g(n):\n    for i in range(n):\n        if i:\n            n -= 1\n"
instrument(compile(br.preinstrument(ast.parse(warm)), FILE, "exec"))
t0 = time.perf_counter()
obj, plan = instrument(compile(br.preinstrument(ast.parse(code)), FILE, "exec"))
once = time.perf_counter() - t0
argcode = compile("(lambda *a, **k: (a, k))(" + args + ")", "<input>", "eval")
times = []
for _ in range(repeat):
    g = {"__name__": "__codemorph_program__"}
    t0 = time.perf_counter()
    sink.newly_seen = {FILE: set()}
    run = fresh(obj, plan)
    exec(run, g)
    a, k = eval(argcode, g)
    g["f"](*a, **k)
    times.append(time.perf_counter() - t0)
lines, arcs = seen()
times.sort()
print(json.dumps([times[len(times) // 2], once, lines, arcs]))
"""

#: ``--slipcover-check``: every CRUXEval program on its input (and :data:`CONSTRUCTS`), run
#: plain, with a ``sys.settrace`` tracer that records what codemorph's Python tracer records
#: (lines; arcs ``(previous line, line)`` per frame) and under SlipCover; compares the result
#: (repr, or exception), the lines, the successors of each ``if``/``while``/``for`` line (arcs
#: other than ``(line, line)``) and the branch figure (distinct successors, at most 2 per
#: statement, as ``codemorph.verification.coverage`` counts them)
_SLIPCOVER_CHECK = _SLIPCOVER_INSTRUMENT + r"""
rows = json.loads(sys.stdin.read())

def python_trace(co, argcode):
    arcs = set()
    def glob(frame, event, arg):
        if frame.f_code.co_filename != FILE:
            return None
        prev = None
        def local(frame, event, arg):
            nonlocal prev
            if event == "line":
                arcs.add((prev, frame.f_lineno))
                prev = frame.f_lineno
            return local
        return local
    g = {}
    sys.settrace(glob)
    try:
        exec(co, g)
        a, k = eval(argcode, g)
        g["f"](*a, **k)
    except Exception:
        pass
    finally:
        sys.settrace(None)
    return sorted({b for _, b in arcs}), sorted(x for x in arcs if x[0] is not None)

def outcome(co, argcode):
    g = {}
    try:
        exec(co, g)
        a, k = eval(argcode, g)
        return repr(g["f"](*a, **k))
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"

def successors(arcs, branch_lines):
    out = {}
    for a, b in arcs:
        if a in branch_lines and a != b:
            out.setdefault(a, set()).add(b)
    return out

differ = {"results": [], "lines": [], "successors": [], "branch figures": []}
for rid, code, args in rows:
    argcode = compile("(lambda *a, **k: (a, k))(" + args + ")", "<input>", "eval")
    tree = ast.parse(code)
    branch_lines = {n.lineno for n in ast.walk(tree) if isinstance(n, (ast.If, ast.While, ast.For))}
    lines, arcs = python_trace(compile(code, FILE, "exec"), argcode)
    plain_result = outcome(compile(code, FILE, "exec"), argcode)
    obj, plan = instrument(compile(br.preinstrument(tree), FILE, "exec"))
    sink.newly_seen = {FILE: set()}
    if outcome(fresh(obj, plan), argcode) != plain_result:
        differ["results"].append(rid)
    s_lines, s_arcs = seen()
    p, q = successors(arcs, branch_lines), successors(s_arcs, branch_lines)
    if lines != s_lines:
        differ["lines"].append(rid)
    if p != q:
        differ["successors"].append(rid)
    if sum(min(2, len(v)) for v in p.values()) != sum(min(2, len(v)) for v in q.values()):
        differ["branch figures"].append(rid)
print(json.dumps(differ))
"""

#: programs for ``--slipcover-check`` beside CRUXEval's: constructs whose lines or branches
#: a bytecode instrumenter could get wrong, ``(name, code, input)``
CONSTRUCTS = (
    ("if/elif/else", "def f(x):\n    if x > 2:\n        y = 1\n    elif x > 0:\n        y = 2\n"
                     "    else:\n        y = 3\n    return y\n", "1"),
    ("while/else with break", "def f(n):\n    i = 0\n    while i < n:\n        i += 1\n        if i == 5:\n"
                              "            break\n    else:\n        i = -1\n    return i\n", "9"),
    ("for/else with break", "def f(xs):\n    for x in xs:\n        if x < 0:\n            break\n    else:\n"
                            "        return 0\n    return x\n", "[1, -1]"),
    ("match", "def f(x):\n    match x:\n        case 1:\n            return 'a'\n        case [a, b]:\n"
              "            return 'b'\n    return 'c'\n", "[1, 2]"),
    ("generator and recursion", "def gen(n):\n    for i in range(n):\n        if i % 2:\n            yield i\n"
                                "def f(n):\n    if n <= 0:\n        return 0\n"
                                "    return sum(gen(n)) + f(n - 1)\n", "5"),
    ("if last in a with block", "class C:\n    def __enter__(self):\n        return self\n"
                                "    def __exit__(self, *a):\n        return False\n"
                                "def f(x):\n    with C():\n        if x:\n            x += 1\n    return x\n", "0"),
    ("exception raised in a condition", "def f(x):\n    r = []\n    try:\n        if 10 // x:\n"
                                        "            r.append(1)\n    except ZeroDivisionError:\n"
                                        "        r.append(2)\n    return r\n", "0"),
    ("condition on two lines", "def f(a, b):\n    if (a and\n            b):\n        return 1\n"
                               "    return 2\n", "1, 0"),
    ("block on the statement's line", "def f(xs):\n    c = 0\n    for x in xs:\n        if x: c += 1\n"
                                      "        elif x is None: c -= 1\n    return c\n", "[1, 0, None]"),
    ("program assigning _slipcover_branches", "_slipcover_branches = 5\ndef f(x):\n    if x:\n"
                                              "        return _slipcover_branches\n    return 0\n", "1"),
)

MODES = ("plain", "tracing floor", "sandbox", "lines+arcs (C)", "lines+arcs (Python)", "with types", "SlipCover")


def plain(code: str, args: str, repeat: int, floor: bool = False) -> float:
    """Median seconds of the program (module body + call) in a fresh plain interpreter;
    ``floor``: with tracing on but a global trace function that returns ``None`` (no local
    trace function), the least any ``sys.settrace``/``PyEval_SetTrace`` line tracer can cost
    on this interpreter (CPython <= 3.11 runs every instruction through its tracing path)."""
    out = subprocess.run([sys.executable, "-I", "-c", _PLAIN], input=json.dumps([code, args, repeat, floor]),
                         capture_output=True, text=True, check=True)
    return float(out.stdout)


def slipcover_run(code: str, args: str, repeat: int) -> tuple[float, float, list, list] | None:
    """(median seconds of a run with fresh probes, seconds to instrument the program once,
    the last run's executed lines, its branch arcs) under SlipCover in a fresh plain
    interpreter, or ``None`` when slipcover is not installed."""
    out = subprocess.run([sys.executable, "-I", "-c", _SLIPCOVER], input=json.dumps([code, args, repeat]),
                         capture_output=True, text=True)
    if out.returncode:
        if "No module named 'slipcover'" in out.stderr:
            return None
        raise SystemExit(f"SlipCover: {out.stderr.strip().splitlines()[-1]}")
    run, once, lines, arcs = json.loads(out.stdout)
    return run, once, lines, [tuple(a) for a in arcs]


def in_sandbox(sb: Sandbox, code: str, args: str, repeat: int, mode: str) -> tuple[float, float, Outcome]:
    """(median own seconds, wall seconds per execution, the first outcome) of ``repeat``
    identical requests."""
    kw = {"sandbox": {}, "lines+arcs (C)": {"trace": True, "types": False},
          "lines+arcs (Python)": {"trace": True, "types": False, "python_tracer": True},
          "with types": {"trace": True, "types": True}}[mode]
    reqs = [ExecRequest(code, "f", args, **kw) for _ in range(repeat)]
    t0 = time.perf_counter()
    outs = sb.run_batch(reqs)
    wall = (time.perf_counter() - t0) / repeat
    bad = [o for o in outs if o.status != "returned" or o.coverage_partial]
    if bad:
        raise SystemExit(f"{mode}: {bad[0].status} {bad[0].note}")
    return statistics.median(o.duration for o in outs), wall, outs[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cruxeval", type=int, default=len(CRUX_IDS), help="how many of the CRUXEval programs")
    ap.add_argument("--slipcover-check", action="store_true",
                    help="only compare SlipCover's lines and branch successors with the Python tracer's on every "
                         "CRUXEval program (needs slipcover)")
    args = ap.parse_args()
    if args.slipcover_check:
        with open(DATA, encoding="utf-8") as fh:
            rows = [(r["id"], r["code"], r["input"]) for r in map(json.loads, fh)]
        n_crux = len(rows)
        rows += [(f"[{name}]", code, a) for name, code, a in CONSTRUCTS]
        out = subprocess.run([sys.executable, "-I", "-c", _SLIPCOVER_CHECK], input=json.dumps(rows),
                             capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(f"--slipcover-check: {(out.stderr.strip().splitlines() or ['failed'])[-1]}")
        for what, ids in json.loads(out.stdout).items():
            crux = [i for i in ids if not i.startswith("[")]
            print(f"{n_crux} CRUXEval programs, {what} differ: {len(crux)} {' '.join(crux)}")
            print(f"  constructs whose {what} differ: {' '.join(i for i in ids if i.startswith('[')) or 'none'}")
        return

    programs = [(f"loop of {args.n:,}", LOOP, str(args.n), args.repeat)]
    rows = {}
    with open(DATA, encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            rows[r["id"]] = r
    for rid in CRUX_IDS[:args.cruxeval]:
        r = rows[rid]
        programs.append((rid, r["code"], r["input"], max(args.repeat, 50)))

    with Sandbox(Limits(timeout=120), workers=1) as sb:
        sb.run(ExecRequest("def f():\n    return 0\n"))  # start-up is not measured
        print(f"{'program':24}" + "".join(f"{m:>22}" for m in MODES))
        for name, code, a, repeat in programs:
            own = {m: [] for m in MODES}
            wall = {m: [] for m in MODES}
            once = []
            c_traced = slip = None
            for _ in range(args.rounds):
                for m in MODES:
                    if m == "plain":
                        own[m].append(plain(code, a, repeat))
                    elif m == "tracing floor":
                        own[m].append(plain(code, a, repeat, floor=True))
                    elif m == "SlipCover":
                        got = slipcover_run(code, a, repeat)
                        if got is not None:
                            own[m].append(got[0])
                            once.append(got[1])
                            slip = got
                    else:
                        o, w, first = in_sandbox(sb, code, a, repeat, m)
                        own[m].append(o)
                        wall[m].append(w)
                        if m == "lines+arcs (C)":
                            c_traced = first
            med = {m: statistics.median(v) for m, v in own.items() if v}
            base = med["plain"]
            unit, scale = ("ms", 1e3) if base > 1e-3 else ("us", 1e6)
            print(f"{name:24}" + "".join(f"{med[m] * scale:>12.3g} {unit} {med[m] / base:>5.1f}x" if m in med
                                         else f"{'n/a':>22}" for m in MODES))
            print(f"{'  whole execution':24}{'':>44}" + "".join(
                f"{statistics.median(wall[m]) * 1e3:>16.3g} ms  " for m in MODES[2:-1]))
            if once:
                print(f"{'  SlipCover: instrument once':44}{statistics.median(once) * 1e3:.3g} ms "
                      f"(AST pre-instrumentation, compile, probes; per program, not in the column)")
            if slip is not None and c_traced is not None:
                # the C tracer's arcs from the lines SlipCover has branch arcs from, for comparison
                branch_lines = {x for x, _ in slip[3]}
                c_arcs = sorted(arc for arc in c_traced.arcs if arc[0] in branch_lines and arc[0] != arc[1])
                s_arcs = [arc for arc in slip[3] if arc[0] != arc[1]]
                same_lines = "equal" if slip[2] == list(c_traced.lines) else "DIFFER"
                same_arcs = "equal" if s_arcs == c_arcs else f"DIFFER {s_arcs} {c_arcs}"
                print(f"{'  SlipCover against the C tracer':44}lines {same_lines}, "
                      f"successors of branch lines {same_arcs}")


if __name__ == "__main__":
    main()
