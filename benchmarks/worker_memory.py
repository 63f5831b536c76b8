"""Measure the memory of ``generate``'s worker processes: per row, the worker's peak
address space (``VmPeak``, what ``RLIMIT_AS`` and so ``--worker-memory`` count) and its peak
resident set (``VmHWM``, what the summary's "peak memory per worker" reports), read from
``/proc/self/status`` after the row.  Used to choose the default of ``--worker-memory``
(README, "Memory per worker").

Usage::

    python benchmarks/make_large_program.py -o large.jsonl
    python benchmarks/worker_memory.py ../shared/data/cruxeval/cruxeval.jsonl -t rename-locals -t dead-code -t for-to-while -t invert-if
    python benchmarks/worker_memory.py large.jsonl -t rename-locals -t dead-code

Prints, per worker process, the largest VmPeak and VmHWM over its rows (MiB), and the
rows with the largest VmPeak.  Linux only (reads ``/proc``).
"""

from __future__ import annotations

import argparse
from functools import partial

from codemorph.jobs.executors import map_rows
from codemorph.jobs.generate import GenerateConfig, RowProcessor, _process_row
from codemorph.rows.dataset import read_rows


def _status() -> dict[str, int]:
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmPeak", "VmHWM", "VmSize", "VmRSS"):
                out[key] = int(value.split()[0]) // 1024  # kB -> MiB
    return out


def measured(state: RowProcessor, row) -> tuple[str, int, dict[str, int], str]:
    """Process the row as ``generate`` does; return its id, this worker's pid, the memory
    figures after it and how many rows it wrote."""
    import os

    out = _process_row(state, row)
    return row.id, os.getpid(), _status(), f"{len(out.rows)} rows, {len(out.rejects)} rejects"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data")
    ap.add_argument("-t", "--transform", action="append", required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rows", type=int, default=0, help="first N rows only (0: all)")
    args = ap.parse_args()
    config = GenerateConfig.from_transforms(tuple(args.transform), workers=args.workers)
    rows = [r for r in read_rows(args.data) if not hasattr(r, "stage")]
    if args.rows:
        rows = rows[:args.rows]
    per: dict[int, dict[str, int]] = {}
    top = []
    for _, (rid, pid, st, what) in map_rows(measured, rows, setup=partial(RowProcessor, config, freeze_heap=True),
                                             workers=args.workers, passthrough=None):
        seen = per.setdefault(pid, {"VmPeak": 0, "VmHWM": 0, "rows": 0})
        seen["VmPeak"] = max(seen["VmPeak"], st["VmPeak"])
        seen["VmHWM"] = max(seen["VmHWM"], st["VmHWM"])
        seen["rows"] += 1
        top.append((st["VmPeak"], st["VmHWM"], rid, what))
    for pid, seen in per.items():
        print(f"worker {pid}: {seen['rows']} rows, VmPeak {seen['VmPeak']} MiB, VmHWM {seen['VmHWM']} MiB")
    for peak, hwm, rid, what in sorted(top, reverse=True)[:5]:
        print(f"  after row {rid}: VmPeak {peak} MiB, VmHWM {hwm} MiB ({what})")


if __name__ == "__main__":
    main()
