"""Benchmark: the full perturbation search against pure random type-preserving mutation at
the same execution budget, per exception class, in the same run.

For every program of a CRUXEval-format file (default: every 4th of the 800 CRUXEval
programs in ../shared/data/cruxeval/cruxeval.jsonl) both searches start from the row's
input:

* ``full``: :func:`codemorph.perturb.search_many` with the default strategies (mutation,
  guided, z3) and every target at once, budget ``--executions`` per program;
* ``random``: exactly as many executions (the number the full search used, shrinking and
  confirmation included) of :func:`codemorph.inputs.mutate_args` mutants, seeded with the
  program's literals, the classes they raise counted without confirmation.

Prints, per class, the programs each reached, the ratio full/random, and the total time
of each side.  Usage::

    .venv/bin/python benchmarks/bench_perturb.py [--data FILE] [--every 4] [--limit N]
                                                 [--executions 1500] [--workers 2] [--dump FILE]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CLASSES = ["IndexError", "KeyError", "ValueError", "ZeroDivisionError", "TypeError", "AttributeError",
           "RecursionError", "StopIteration", "UnboundLocalError", "AssertionError"]
TARGETS = CLASSES + ["any-exception", "output-change"]

_SB = None


def _init():
    global _SB
    from codemorph.perturb.search import search_limits
    from codemorph.sandbox.pool import Sandbox
    _SB = Sandbox(search_limits())


def _one(args):
    row, executions, seed = args
    from codemorph.errors import CodemorphError
    from codemorph.inputs import mutate_args, parse_args
    from codemorph.perturb import Budget, search_many
    from codemorph.perturb.search import SEARCH_CPU_TIMEOUT, literal_seed, program_constants
    from codemorph.engine.program import Program
    from codemorph.sandbox.pool import ExecRequest

    try:
        program = Program(row["code"])
        seed_input = literal_seed(_SB, program, row["input"])
        parse_args(seed_input)  # the random mutator needs an all-literal input: compare on those only
    except CodemorphError:
        return None
    t0 = time.perf_counter()
    rep = search_many(program, seed_input, TARGETS, Budget(executions=executions, seconds=60.0), seed,
                      sandbox=_SB)
    t_full = time.perf_counter() - t0
    full = {t for t, ps in rep.found.items() if ps}
    n = max(1, rep.executions)
    t0 = time.perf_counter()
    mutants = mutate_args(seed_input, n, random.Random(seed), program_constants(program.module))
    rand: set[str] = set()
    # the same per-execution CPU limit as the full search's executions
    seed_o = _SB.run(ExecRequest(row["code"], "f", seed_input, cpu_timeout=SEARCH_CPU_TIMEOUT))
    for k in range(0, len(mutants), 64):
        for o in _SB.run_batch([ExecRequest(row["code"], "f", m, cpu_timeout=SEARCH_CPU_TIMEOUT)
                                for m in mutants[k:k + 64]]):
            if o.status == "raised" and o.exception is not None:
                rand.add(o.exception.type)
                rand.add("any-exception")
            elif o.status == "returned" and o.literal_ok and o.fingerprint != seed_o.fingerprint:
                rand.add("output-change")
    t_rand = time.perf_counter() - t0
    return row["id"], full, rand, t_full, t_rand, rep.executions, len(mutants)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"))
    ap.add_argument("--every", type=int, default=4, help="take every N-th program")
    ap.add_argument("--limit", type=int, default=0, help="at most this many programs (0 = all taken)")
    ap.add_argument("--executions", type=int, default=1500, help="execution budget of the full search per program")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dump", default="", help="write per-program reached classes (JSON Lines) to this file")
    a = ap.parse_args()
    rows = [json.loads(x) for x in open(a.data, encoding="utf-8") if x.strip()][:: a.every]
    if a.limit:
        rows = rows[: a.limit]
    full_c: Counter = Counter()
    rand_c: Counter = Counter()
    t_full = t_rand = 0.0
    ex_full = ex_rand = 0
    start = time.perf_counter()
    dump = open(a.dump, "w", encoding="utf-8") if a.dump else None
    with multiprocessing.get_context("spawn").Pool(a.workers, initializer=_init) as pool:
        for res in pool.imap(_one, [(r, a.executions, a.seed) for r in rows], chunksize=1):
            if res is None:
                continue
            rid, full, rand, tf, tr, ef, er = res
            if dump:
                dump.write(json.dumps({"id": rid, "full": sorted(full), "random": sorted(rand)}) + "\n")
            full_c.update(full)
            rand_c.update(rand)
            t_full += tf
            t_rand += tr
            ex_full += ef
            ex_rand += er
    wall = time.perf_counter() - start
    if dump:
        dump.close()
    print(f"{len(rows)} programs from {a.data} (every {a.every}), full-search budget {a.executions} executions")
    print(f"{'target':<20} {'random':>8} {'full':>8} {'full/random':>12}")
    for t in TARGETS:
        r, f = rand_c[t], full_c[t]
        ratio = f"{f / r:.2f}" if r else ("inf" if f else "-")
        print(f"{t:<20} {r:>8} {f:>8} {ratio:>12}")
    print(f"executions: full {ex_full}, random {ex_rand}")
    print(f"seconds (summed over workers): full {t_full:.1f}, random {t_rand:.1f}; wall {wall:.1f}")


if __name__ == "__main__":
    main()
