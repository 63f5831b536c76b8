"""Throughput of ``codemorph generate`` on CRUXEval, against one fresh process per execution.

Two measurements in the same run, on the same rows and transforms:

* ``generate``: the real job (:func:`codemorph.generate.generate`) over ``--rows`` rows
  (default: all 800) with ``--workers`` processes, each owning a reused sandbox worker
  that forks one child per batch of executions;
* ``fresh``: the same per-row work (:class:`codemorph.generate.RowProcessor`: baseline,
  transforms, differential verification) with every execution in a newly started sandbox
  process, on a sample of ``--fresh-rows`` rows (a full run would take an hour),
  extrapolated to ``--rows`` rows from its programs per second.

For both it prints wall seconds, CPU seconds (user + system of the process and of every
child process it waited for: pool workers, sandbox workers and their forked children) and
programs (input rows) per second, then the ratio.  The machine's load average is printed
before and after: on a shared machine, wall time grows with the load and CPU time is the
fairer measure.  The issue's target: the whole CRUXEval run with the four transforms in under
60 seconds on an otherwise idle 2-core machine.

Usage::

    python benchmarks/bench_generate.py [--rows 800] [--fresh-rows 20] [--workers N]
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import tempfile
import time
from pathlib import Path

from codemorph.rows.dataset import read_rows
from codemorph.jobs.executors import default_workers
from codemorph.jobs.generate import GenerateConfig, RowProcessor, generate
from codemorph.sandbox.pool import Limits, Sandbox

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"
FOUR = ("rename-locals", "dead-code", "for-to-while", "invert-if")


class FreshProcessSandbox:
    """Duck-types :class:`Sandbox` for :class:`RowProcessor`, but starts a new sandbox
    process for every single execution (and stops it afterwards)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.hash_seed = 0
        self.executions = 0

    def run_batch(self, requests, hash_seed=None):
        out = []
        for r in requests:
            sb = Sandbox(self.limits, workers=1, **({} if hash_seed is None else {"hash_seed": hash_seed}))
            try:
                out += sb.run_batch([r])
            finally:
                sb.close()
            self.executions += 1
        return out

    def run(self, request):
        return self.run_batch([request])[0]

    def close(self) -> None:
        pass


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its waited-for descendants."""
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--rows", type=int, default=800)
    ap.add_argument("--fresh-rows", type=int, default=20)
    ap.add_argument("--workers", type=int, default=0, help="worker processes (0: as `codemorph generate`, "
                                                           "one more than the CPUs)")
    args = ap.parse_args()
    args.workers = args.workers or default_workers()

    print(f"load average before: {load()} ({os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.jsonl"
        with open(args.data, encoding="utf-8") as fh:
            src.write_text("".join(itertools.islice(fh, args.rows)), encoding="utf-8")
        config = GenerateConfig.from_transforms(FOUR, workers=args.workers)
        cpu0, start = cpu_seconds(), time.perf_counter()
        summary = generate(src, Path(tmp) / "out.jsonl", config)
        pooled, pooled_cpu = time.perf_counter() - start, cpu_seconds() - cpu0
    print(f"load average after generate: {load()}")

    rows = [r for r in itertools.islice(read_rows(args.data), args.fresh_rows) if not hasattr(r, "stage")]
    proc = RowProcessor(GenerateConfig.from_transforms(FOUR, workers=1))
    proc.sandbox.close()
    fresh_sb = FreshProcessSandbox(proc.config.limits)
    proc.sandbox = fresh_sb
    cpu0, start = cpu_seconds(), time.perf_counter()
    for r in rows:
        proc.process(r)
    fresh, fresh_cpu = time.perf_counter() - start, cpu_seconds() - cpu0
    print(f"load average after the fresh-process sample: {load()}")

    n = summary.rows_read
    p_rate = n / pooled
    f_rate = len(rows) / fresh
    scale = n / max(1, len(rows))
    print(f"{'':38}{'generate (reused workers)':>27}{'fresh process per execution':>30}")
    print(f"{'rows measured':38}{n:>27}{len(rows):>30}")
    print(f"{'wall seconds (measured)':38}{pooled:>27.1f}{fresh:>30.1f}")
    print(f"{'CPU seconds (measured)':38}{pooled_cpu:>27.1f}{fresh_cpu:>30.1f}")
    print(f"{'programs per second (wall)':38}{p_rate:>27.2f}{f_rate:>30.2f}")
    print(f"{'programs per CPU second':38}{n / pooled_cpu:>27.2f}{len(rows) / fresh_cpu:>30.2f}")
    print(f"{f'wall seconds for {n} rows':38}{pooled:>27.1f}{fresh * scale:>24.0f} (extr.)")
    print(f"{f'CPU seconds for {n} rows':38}{pooled_cpu:>27.1f}{fresh_cpu * scale:>24.0f} (extr.)")
    print(f"{'sandbox executions (fresh sample)':38}{'':>27}{fresh_sb.executions:>30}")
    print(f"ratio: generate is {p_rate / f_rate:.1f}x faster per program in wall time "
          f"({args.workers} workers vs 1 process at a time) and {(n / pooled_cpu) / (len(rows) / fresh_cpu):.1f}x "
          f"in CPU time; the fresh-process column is a {len(rows)}-row sample extrapolated to {n} rows")
    print(f"whole CRUXEval run (800 rows, four transforms): {800 / p_rate:.0f} s wall at this load, "
          f"{pooled_cpu * 800 / n:.0f} CPU seconds (target: under 60 s wall on an idle 2-core machine, "
          f"i.e. about 110 CPU seconds)")
    print(f"variants written: {summary.variants_written}; rows rejected: {summary.rows_rejected}")


if __name__ == "__main__":
    main()
