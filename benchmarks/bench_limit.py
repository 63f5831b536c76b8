"""codemorph ``generate``'s CPU time over the plain-execution limit, on CRUXEval.

The limit is what any tool producing the same verified rows must spend at least:

* the same executions: each original program and each *written* variant, run once on every
  distinct input its verification used (the row's own input and the mutants), in one plain
  interpreter -- no sandbox, no tracing, no fork, no result fingerprints -- started as a
  subprocess of this benchmark (the programs never run in the benchmark's own process);
* an execution the sandbox stopped at a limit (a timeout, a mutant's line budget) is not
  replayed but charged at the duration the sandbox measured for it;
* one libcst parse of each row and one metadata pass (scopes, parents, positions: what the
  transforms read), in that subprocess too.

``generate`` runs here in this process with one worker (``--workers 1``: its host side is
this process, its sandbox side the sandbox processes it waited for), with the four
foundation transforms; every execution request it sends to the sandbox is recorded, and the
limit's executions are those of the original and written programs among them (a seed input
run twice, or under other hash seeds, counts once).

Printed: generate's CPU seconds (host and sandbox), the limit's (executions and parsing),
and the ratio.  Only argument-list rows (``args``) are replayed; CRUXEval has no other kind.
The plain interpreter gives each execution the sandbox's default time limit (5 s, by
``SIGALRM``) and a 2 GiB address-space limit.  Run it on trusted data only: the replay is
not sandboxed.

Usage::

    python benchmarks/bench_limit.py [--data cruxeval.jsonl] [--rows 300]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codemorph.jobs.generate import GenerateConfig, generate
from codemorph.naturalness import prepare_default_model
from codemorph.sandbox.pool import Sandbox

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"
FOUR = ("rename-locals", "dead-code", "for-to-while", "invert-if")

#: the plain interpreter's script: reads the jobs file, prints its CPU split as JSON
REPLAY = r'''
import io, json, resource, signal, sys, time, contextlib
import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider, ScopeProvider

jobs = json.load(open(sys.argv[1], encoding="utf-8"))
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
sys.setrecursionlimit(10000)

class Timeout(BaseException):
    pass

def alarm(*_):
    raise Timeout

signal.signal(signal.SIGALRM, alarm)
cpu = time.process_time
t0 = cpu()
for source in jobs["rows"]:
    wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    wrapper.resolve_many([ScopeProvider, ParentNodeProvider, PositionProvider])
t1 = cpu()
runs = timeouts = 0
for code, entry, inputs in jobs["programs"]:
    compiled = compile(code, "<program>", "exec")
    for args in inputs:
        runs += 1
        sink = io.StringIO()
        signal.setitimer(signal.ITIMER_REAL, 5.0)
        try:
            with contextlib.redirect_stdout(sink):
                env = {"__name__": "__program__"}
                exec(compiled, env)
                env[entry](*eval(f"({args},)", {}))
        except Timeout:
            timeouts += 1
        except BaseException:
            pass
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
t2 = cpu()
print(json.dumps({"parse": t1 - t0, "exec": t2 - t1, "runs": runs, "timeouts": timeouts}))
'''


def cpu_split() -> tuple[float, float]:
    """(this process, its waited-for descendants) user + system CPU seconds."""
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--rows", type=int, default=300)
    args = ap.parse_args()

    recorded: list[tuple[str, str, str, str, bool, float]] = []
    run_batch = Sandbox.run_batch

    def recording(self, requests, **kw):
        requests = list(requests)
        outs = run_batch(self, requests, **kw)
        recorded.extend((r.code, r.entry_point, r.args or "", r.input_kind, o.completed, o.duration or 0.0)
                        for r, o in zip(requests, outs))
        return outs

    prepare_default_model()  # trained once per machine, outside the measurement
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
        with open(args.data, encoding="utf-8") as fh:
            src.write_text("".join(itertools.islice(fh, args.rows)), encoding="utf-8")
        Sandbox.run_batch = recording  # type: ignore[method-assign]
        try:
            host0, sb0 = cpu_split()
            start = time.perf_counter()
            summary = generate(src, out, GenerateConfig.from_transforms(FOUR, workers=1))
            wall = time.perf_counter() - start
            host1, sb1 = cpu_split()
        finally:
            Sandbox.run_batch = run_batch  # type: ignore[method-assign]
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        kept = {r["code"] for r in rows}
        originals = [r["code"] for r in rows if r["kind"] == "original"]
        inputs: dict[tuple[str, str], dict[str, None]] = {}
        stopped: dict[tuple[str, str], float] = {}
        skipped = 0
        for code, entry, text, kind, completed, seconds in recorded:
            if code not in kept:
                continue
            if kind != "args":
                skipped += 1
                continue
            if not completed:  # stopped by a limit in the sandbox: charged at its own duration
                stopped[(code, text)] = max(stopped.get((code, text), 0.0), seconds)
                continue
            inputs.setdefault((code, entry), {})[text] = None
        jobs = {"rows": originals, "programs": [[c, e, list(t)] for (c, e), t in inputs.items()]}
        jobs_path = Path(tmp) / "jobs.json"
        jobs_path.write_text(json.dumps(jobs), encoding="utf-8")
        script = Path(tmp) / "replay.py"
        script.write_text(REPLAY, encoding="utf-8")
        work = Path(tmp) / "work"
        work.mkdir()
        res = subprocess.run([sys.executable, str(script), str(jobs_path)], cwd=work, capture_output=True, stdin=subprocess.DEVNULL,
                             text=True, check=True)
        plain = json.loads(res.stdout.strip().splitlines()[-1])

    host, sandbox = host1 - host0, sb1 - sb0
    total = host + sandbox
    cut = sum(stopped.values())
    limit = plain["parse"] + plain["exec"] + cut
    print(f"rows: {summary.rows_read} read, {summary.originals_written} originals and {summary.variants_written} "
          f"variants written ({', '.join(FOUR)}; --workers 1; {wall:.1f} s wall)")
    print(f"generate CPU seconds: {total:.2f} = host {host:.2f} ({host / total:.0%}) + sandbox {sandbox:.2f} "
          f"({sandbox / total:.0%})")
    print(f"limit CPU seconds:    {limit:.2f} = plain executions {plain['exec']:.2f} ({plain['runs']} runs of "
          f"{len(jobs['programs'])} programs, {plain['timeouts']} hit 5 s) + libcst parse and metadata "
          f"{plain['parse']:.2f} ({len(originals)} rows) + {cut:.2f} for {len(stopped)} executions a sandbox "
          "limit stopped (their sandbox duration)" + (f"; {skipped} non-args runs not replayed" if skipped else ""))
    print(f"ratio: generate uses {total / limit:.1f}x the limit's CPU time "
          f"(host {host / limit:.1f}x, sandbox {sandbox / limit:.1f}x)")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
