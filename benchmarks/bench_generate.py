"""Throughput of ``codemorph generate`` on CRUXEval, against one fresh process per execution.

Two measurements in the same run, on the same rows and transforms:

* ``generate``: the real job (:func:`codemorph.generate.generate`) over ``--rows`` rows
  (default: all 800) with ``--workers`` processes, each owning a reused sandbox worker
  that forks one child per batch of executions;
* ``fresh``: the same per-row work (:class:`codemorph.generate.RowProcessor`: baseline,
  transforms, differential verification, output runs) with every execution in a newly
  started sandbox process, on a sample of ``--fresh-rows`` rows (a full run would take
  an hour), extrapolated as programs per second.

Prints programs per second for both, side by side, and the ratio.  The issue's target:
the whole CRUXEval run with the four transforms in under 60 seconds on a 2-core machine.

Usage::

    python benchmarks/bench_generate.py [--rows 800] [--fresh-rows 20] [--workers 2]
"""

from __future__ import annotations

import argparse
import itertools
import os
import tempfile
import time
from pathlib import Path

from codemorph.dataset import read_rows
from codemorph.generate import GenerateConfig, RowProcessor, generate
from codemorph.sandbox import Limits, Sandbox

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--rows", type=int, default=800)
    ap.add_argument("--fresh-rows", type=int, default=20)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.jsonl"
        with open(args.data, encoding="utf-8") as fh:
            src.write_text("".join(itertools.islice(fh, args.rows)), encoding="utf-8")
        config = GenerateConfig.from_transforms(FOUR, workers=args.workers)
        start = time.perf_counter()
        summary = generate(src, Path(tmp) / "out.jsonl", config)
        pooled = time.perf_counter() - start

    rows = [r for r in itertools.islice(read_rows(args.data), args.fresh_rows) if not hasattr(r, "stage")]
    proc = RowProcessor(GenerateConfig.from_transforms(FOUR, workers=1))
    proc.sandbox.close()
    fresh_sb = FreshProcessSandbox(proc.config.limits)
    proc.sandbox = fresh_sb
    start = time.perf_counter()
    for r in rows:
        proc.process(r)
    fresh = time.perf_counter() - start

    p_rate = summary.rows_read / pooled
    f_rate = len(rows) / fresh
    print(f"{'':34}{'generate (reused workers)':>28}{'fresh process per execution':>30}")
    print(f"{'rows':34}{summary.rows_read:>28}{len(rows):>30}")
    print(f"{'wall seconds':34}{pooled:>28.1f}{fresh:>30.1f}")
    print(f"{'programs per second':34}{p_rate:>28.2f}{f_rate:>30.2f}")
    print(f"{'executions (fresh sample)':34}{'':>28}{fresh_sb.executions:>30}")
    print(f"ratio: generate is {p_rate / f_rate:.1f}x faster per program "
          f"({args.workers} workers vs 1 process at a time)")
    est = 800 / p_rate
    print(f"estimated whole CRUXEval run (800 rows, four transforms): {est:.0f} s (target: under 60 s)")
    print(f"variants written: {summary.variants_written}; rows rejected: {summary.rows_rejected}")


if __name__ == "__main__":
    main()
