"""Throughput of the sandbox on CRUXEval programs: reused workers vs one fresh process per execution.

Each program runs on a batch of 21 inputs: its CRUXEval input plus 20 type-preserving
mutants (:func:`codemorph.inputs.mutate_args`).  Two ways are timed on the same requests:

* ``sandbox``: :class:`codemorph.sandbox.Sandbox` (forked children of long-lived workers,
  one fork per batch), with repr, fingerprints and the literal check of every result;
* ``fresh``: one new ``python -I`` process per execution that only execs the module,
  calls the entry point and prints ``repr`` of the result (the cheapest isolated
  alternative; it has no fingerprints, no output capture, no limits but a timeout).

Usage::

    python benchmarks/bench_sandbox.py [--programs 800] [--fresh-programs 40] [--workers 1]

Prints executions per second for both, side by side, and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

from codemorph.errors import InputError
from codemorph.inputs import mutate_args
from codemorph.sandbox.pool import ExecRequest, Limits, Sandbox

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"

# runs in the fresh process: stdin carries {"code", "args"}; prints repr of the result
_FRESH_HARNESS = r"""
import json, sys
req = json.loads(sys.stdin.read())
g = {}
try:
    exec(compile(req["code"], "<program>", "exec"), g)
    value = eval(f"f({req['args']})", g)
    out = {"status": "returned", "repr": repr(value)}
except BaseException as exc:
    out = {"status": "raised", "type": type(exc).__name__}
sys.stdout.write(json.dumps(out))
"""


def batches(rows: list[dict], per_program: int) -> list[list[ExecRequest]]:
    """One batch per program: its input plus ``per_program - 1`` mutants."""
    out = []
    for row in rows:
        inputs = [row["input"]]
        try:
            inputs += mutate_args(row["input"], per_program - 1, random.Random(row["id"]))
        except InputError:
            pass
        while len(inputs) < per_program:  # non-literal inputs or few neighbours: repeat the seed
            inputs.append(row["input"])
        out.append([ExecRequest(row["code"], "f", a) for a in inputs])
    return out


def _proc_cpu(pid: int) -> float:
    """CPU seconds of a process and of its reaped children (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime + cutime + cstime) / os.sysconf("SC_CLK_TCK")


def bench_sandbox(work: list[list[ExecRequest]], workers: int,
                  timeout: float) -> tuple[float, float, float, dict]:
    """Returns (executions/s, executions/s not counting timed-out executions and their
    wall time, CPU seconds per execution (host + workers + their children), {status: count})."""
    statuses: dict[str, int] = {}
    in_timeouts = 0.0
    with Sandbox(Limits(timeout=timeout), workers=workers) as sb:
        sb.run(ExecRequest("def f():\n    return 0\n"))  # start-up is not part of the measurement
        if workers > 1:
            list(sb.map([[ExecRequest("def f():\n    return 0\n")]] * workers))
        pids = [w.proc.pid for w in sb._all]
        cpu0 = time.process_time() + sum(_proc_cpu(p) for p in pids)
        t0 = time.perf_counter()
        n = 0
        for outs in sb.map(work):
            n += len(outs)
            for o in outs:
                statuses[o.status] = statuses.get(o.status, 0) + 1
                if o.status == "timeout":
                    in_timeouts += o.duration
        dt = time.perf_counter() - t0
        pids = sorted(set(pids) | {w.proc.pid for w in sb._all})
        cpu = time.process_time() + sum(_proc_cpu(p) for p in pids) - cpu0
    t_out = statuses.get("timeout", 0)
    return n / dt, (n - t_out) / max(1e-9, dt - in_timeouts / workers), cpu / max(1, n), statuses


def bench_fresh(work: list[list[ExecRequest]], timeout: float) -> tuple[float, float, float, dict]:
    """Same measures as :func:`bench_sandbox`, one ``python -I`` process per execution."""
    statuses: dict[str, int] = {}
    in_timeouts = 0.0
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu0 = time.process_time() + ru0.ru_utime + ru0.ru_stime
    t0 = time.perf_counter()
    n = 0
    for batch in work:
        for req in batch:
            payload = json.dumps({"code": req.code, "args": req.args})
            t1 = time.perf_counter()
            try:
                proc = subprocess.run([sys.executable, "-I", "-c", _FRESH_HARNESS], input=payload,
                                      capture_output=True, text=True, timeout=timeout)
                status = json.loads(proc.stdout)["status"] if proc.stdout else "crashed"
            except subprocess.TimeoutExpired:
                status = "timeout"
                in_timeouts += time.perf_counter() - t1
            statuses[status] = statuses.get(status, 0) + 1
            n += 1
    dt = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() + ru1.ru_utime + ru1.ru_stime - cpu0
    t_out = statuses.get("timeout", 0)
    return n / dt, (n - t_out) / max(1e-9, dt - in_timeouts), cpu / max(1, n), statuses


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="CRUXEval jsonl (default: shared/data)")
    ap.add_argument("--programs", type=int, default=800, help="programs run in the sandbox")
    ap.add_argument("--fresh-programs", type=int, default=40,
                    help="programs run with fresh processes (slow; a sample of the same programs)")
    ap.add_argument("--per-program", type=int, default=21, help="executions per program (one batch)")
    ap.add_argument("--workers", type=int, default=1, help="sandbox worker processes")
    ap.add_argument("--timeout", type=float, default=1.0, help="seconds per execution")
    args = ap.parse_args()

    if not args.data.exists():
        sys.exit(f"no data at {args.data}")
    rows = [json.loads(line) for line in args.data.open()][:args.programs]
    work = batches(rows, args.per_program)
    step = max(1, len(work) // max(1, args.fresh_programs))
    fresh_work = work[::step][:args.fresh_programs]

    sb_rate, sb_busy, sb_cpu, sb_status = bench_sandbox(work, args.workers, args.timeout)
    sm_rate, sm_busy, sm_cpu, sm_status = bench_sandbox(fresh_work, args.workers, args.timeout)
    fr_rate, fr_busy, fr_cpu, fr_status = bench_fresh(fresh_work, args.timeout)

    print(f"timeout {args.timeout:g}s, {args.workers} sandbox worker(s), load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; 'w/o timeouts' leaves out timed-out executions "
          f"and the time spent waiting for them; CPU ms/exec counts host, workers and their children "
          f"(independent of other load)")
    print(f"{'mode':<27}{'programs':>9}{'execs':>7}{'timeouts':>9}{'exec/s':>9}{'w/o timeouts':>14}{'CPU ms/exec':>13}")
    for name, w, rate, busy, cpu, st in (
            ("sandbox (reused workers)", work, sb_rate, sb_busy, sb_cpu, sb_status),
            ("sandbox, same sample", fresh_work, sm_rate, sm_busy, sm_cpu, sm_status),
            ("fresh python -I per exec", fresh_work, fr_rate, fr_busy, fr_cpu, fr_status)):
        print(f"{name:<27}{len(w):>9}{sum(map(len, w)):>7}{st.get('timeout', 0):>9}{rate:>9.1f}{busy:>14.1f}"
              f"{1000 * cpu:>13.2f}")
    print(f"ratio sandbox / fresh (same sample): {sm_rate / fr_rate:.1f}x; without timeouts: "
          f"{sm_busy / fr_busy:.1f}x; CPU per execution: {fr_cpu / sm_cpu:.1f}x less")
    print(f"sandbox statuses: {dict(sorted(sb_status.items()))}")
    print(f"fresh statuses:   {dict(sorted(fr_status.items()))}")


if __name__ == "__main__":
    main()
