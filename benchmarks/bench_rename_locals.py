"""Coverage and soundness of ``rename-locals`` on the CRUXEval programs.

For every row (field ``code``, entry point ``f``, input ``input``): build the original's
baseline once (:func:`codemorph.verification.make_baseline`: the row's input plus
``--mutants`` type-preserving mutants, the seed input run twice to detect
nondeterminism), then for each naming scheme apply the transform (the row's input is the
harness input) and check the rewrite against the baseline
(:func:`codemorph.verification.check`: return value fingerprint or exception class, final
argument state, stdout).

Prints, per scheme: rows applied (count and %), every refused row with its reason, the
verdicts (equivalent / differs / inconclusive, with every non-equivalent row and why), the
number of (row, input) pairs compared, and timings (CPU milliseconds per rewrite, wall
time of the checks).  Exit status 1 when a rewrite differs or coverage is below
``--min-coverage``.

Usage::

    .venv/bin/python benchmarks/bench_rename_locals.py [--data PATH] [--mutants 20]
        [--schemes random,obfuscated] [--workers 2] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codemorph import Program
from codemorph.sandbox.pool import Limits, Sandbox
from codemorph.transforms.naming import RenameLocals
from codemorph.verification.differential import check, make_baseline

DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--mutants", type=int, default=20, help="mutated inputs per row (default 20)")
    ap.add_argument("--schemes", default="random,obfuscated")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2, help="sandbox worker processes (default 2)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N rows (0 = all)")
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds per execution of a seed input")
    ap.add_argument("--min-coverage", type=float, default=0.99)
    args = ap.parse_args(argv)

    rows = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    if args.limit:
        rows = rows[: args.limit]
    schemes = args.schemes.split(",")
    transforms = {s: RenameLocals(scheme=s) for s in schemes}
    cpu = {s: 0.0 for s in schemes}

    def one(row: dict, sb: Sandbox) -> dict:
        program = Program(row["code"], "f", row["id"])
        out: dict = {"id": row["id"]}
        rewrites = {}
        for s in schemes:
            t0 = time.thread_time()
            res = transforms[s].apply(program, args.seed, inputs=[row["input"]])
            cpu[s] += time.thread_time() - t0
            rewrites[s] = res
        if not any(r.applied for r in rewrites.values()):
            return {**out, **{s: (r, None) for s, r in rewrites.items()}}
        base = make_baseline(sb, program, [row["input"]], extra_inputs=args.mutants, seed=args.seed,
                             check_hash_seed=False)
        for s, r in rewrites.items():
            out[s] = (r, check(sb, base, r.program) if r.applied else None)
        return out

    t_start = time.perf_counter()
    with Sandbox(Limits(timeout=args.timeout), workers=args.workers) as sb, \
            ThreadPoolExecutor(max_workers=args.workers) as pool:
        results = list(pool.map(lambda row: one(row, sb), rows))
    wall = time.perf_counter() - t_start

    failed = False
    print(f"{len(rows)} rows, {args.mutants} mutants per row, wall time {wall:.0f} s "
          f"(rewrites, baselines and checks, {args.workers} workers)")
    for s in schemes:
        applied = [r for r in results if r[s][0].applied]
        verdicts = [r[s][1] for r in applied]
        equivalent = sum(v.status == "equivalent" for v in verdicts)
        differs = [(r["id"], r[s][1]) for r in applied if r[s][1].status == "differs"]
        inconclusive = [(r["id"], r[s][1]) for r in applied if r[s][1].status == "inconclusive"]
        pct = 100.0 * len(applied) / len(rows) if rows else 0.0
        print(f"== scheme {s}: applied to {len(applied)}/{len(rows)} rows ({pct:.2f}%); "
              f"{1000 * cpu[s] / max(len(rows), 1):.1f} ms CPU per rewrite")
        print(f"   verdicts: {equivalent} equivalent, {len(differs)} differ, {len(inconclusive)} inconclusive; "
              f"{sum(v.inputs_checked for v in verdicts)} (row, input) pairs compared")
        for r in results:
            if not r[s][0].applied:
                print(f"   refused {r['id']}: {r[s][0].reason}")
        for rid, v in differs:
            print(f"   DIFFERS {rid}: {v.reason}")
        for rid, v in inconclusive:
            print(f"   inconclusive {rid}: {v.reason}")
        if differs or (rows and len(applied) / len(rows) < args.min_coverage):
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
