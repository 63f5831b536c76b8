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

The ``tracing floor`` column is the plain interpreter with tracing switched on and a global
trace function that returns ``None``: every line event goes through the interpreter's
tracing path and a C-level trampoline that returns at once.  No tracer built on
``sys.settrace``/``PyEval_SetTrace`` (coverage.py's C tracer included) can cost less on this
interpreter, whatever it records.

Usage::

    python benchmarks/bench_tracing.py [--n 1000000] [--rounds 5] [--repeat 5] [--cruxeval 4]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from codemorph.sandbox import ExecRequest, Limits, Sandbox

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

MODES = ("plain", "tracing floor", "sandbox", "lines+arcs (C)", "lines+arcs (Python)", "with types")


def plain(code: str, args: str, repeat: int, floor: bool = False) -> float:
    """Median seconds of the program (module body + call) in a fresh plain interpreter;
    ``floor``: with tracing on but a global trace function that returns ``None`` (no local
    trace function), the least any ``sys.settrace``/``PyEval_SetTrace`` line tracer can cost
    on this interpreter (CPython <= 3.11 runs every instruction through its tracing path)."""
    out = subprocess.run([sys.executable, "-I", "-c", _PLAIN], input=json.dumps([code, args, repeat, floor]),
                         capture_output=True, text=True, check=True)
    return float(out.stdout)


def in_sandbox(sb: Sandbox, code: str, args: str, repeat: int, mode: str) -> tuple[float, float]:
    """(median own seconds, wall seconds per execution) of ``repeat`` identical requests."""
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
    return statistics.median(o.duration for o in outs), wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cruxeval", type=int, default=len(CRUX_IDS), help="how many of the CRUXEval programs")
    args = ap.parse_args()

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
            for _ in range(args.rounds):
                for m in MODES:
                    if m == "plain":
                        own[m].append(plain(code, a, repeat))
                    elif m == "tracing floor":
                        own[m].append(plain(code, a, repeat, floor=True))
                    else:
                        o, w = in_sandbox(sb, code, a, repeat, m)
                        own[m].append(o)
                        wall[m].append(w)
            med = {m: statistics.median(v) for m, v in own.items()}
            base = med["plain"]
            unit, scale = ("ms", 1e3) if base > 1e-3 else ("us", 1e6)
            print(f"{name:24}" + "".join(f"{med[m] * scale:>12.3g} {unit} {med[m] / base:>5.1f}x" for m in MODES))
            print(f"{'  whole execution':24}{'':>44}" + "".join(
                f"{statistics.median(wall[m]) * 1e3:>16.3g} ms  " for m in MODES[2:]))


if __name__ == "__main__":
    main()
