"""``codemorph generate`` CPU time of two source trees, side by side, on the same rows.

Each round runs ``codemorph generate`` once with each tree's interpreter (its own virtual
environment, e.g. ``/work/main/.venv/bin/python``), alternating which goes first, with the
same rows, transforms (default: the four foundation ones), seed and ``--workers``; CPU time
is user + system of the whole run (the ``generate`` process, its workers and its sandbox
processes, all waited for).  Prints each round, the medians and the ratio of the medians
(new over base), and whether the two trees wrote byte-identical rows and rejects.

Usage::

    python benchmarks/bench_trees.py --base /work/main/.venv/bin/python \\
        --new .venv/bin/python [--rows 800] [--rounds 3] [--workers 2]
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"
FOUR = ("rename-locals", "dead-code", "for-to-while", "invert-if")


def children_cpu() -> float:
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return c.ru_utime + c.ru_stime


def run(python: str, src: Path, out: Path, transforms: tuple[str, ...], workers: int) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``codemorph generate`` run."""
    cmd = [str(Path(python).parent / "codemorph"), "generate", str(src), "-o", str(out), "--workers", str(workers)]
    for t in transforms:
        cmd += ["-t", t]
    cpu0, t0 = children_cpu(), time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return children_cpu() - cpu0, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="interpreter of the baseline tree (its venv's bin/codemorph runs)")
    ap.add_argument("--new", required=True, help="interpreter of the tree measured (its venv's bin/codemorph runs)")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--rows", type=int, default=800)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("-t", "--transform", action="append", help="transforms (default: the four foundation ones)")
    args = ap.parse_args()
    transforms = tuple(args.transform or FOUR)
    cpu: dict[str, list[float]] = {"base": [], "new": []}
    wall: dict[str, list[float]] = {"base": [], "new": []}
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.jsonl"
        with open(args.data, encoding="utf-8") as fh:
            src.write_text("".join(itertools.islice(fh, args.rows)), encoding="utf-8")
        outs = {k: Path(tmp) / f"{k}.jsonl" for k in ("base", "new")}
        for i in range(args.rounds):
            order = ("base", "new") if i % 2 == 0 else ("new", "base")
            for k in order:
                c, w = run(getattr(args, k), src, outs[k], transforms, args.workers)
                cpu[k].append(c)
                wall[k].append(w)
            print(f"round {i + 1}: base {cpu['base'][-1]:.1f} CPU s ({wall['base'][-1]:.1f} wall), "
                  f"new {cpu['new'][-1]:.1f} CPU s ({wall['new'][-1]:.1f} wall)", flush=True)
        same = all(outs["base"].with_name(outs["base"].name.replace(".jsonl", s)).read_bytes()
                   == outs["new"].with_name(outs["new"].name.replace(".jsonl", s)).read_bytes()
                   for s in (".jsonl", ".rejects.jsonl"))
    b, n = statistics.median(cpu["base"]), statistics.median(cpu["new"])
    print(f"{args.rows} rows, {', '.join(transforms)}, --workers {args.workers}, {args.rounds} rounds alternating")
    print(f"median CPU seconds: base {b:.1f}, new {n:.1f}; ratio new/base {n / b:.2f}")
    print(f"median wall seconds: base {statistics.median(wall['base']):.1f}, new {statistics.median(wall['new']):.1f}")
    print(f"rows and rejects byte-identical: {same}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
