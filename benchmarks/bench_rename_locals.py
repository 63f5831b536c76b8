"""Coverage and soundness of ``rename-locals`` on the CRUXEval programs.

For every row (field ``code``, entry point ``f``, input ``input``) and each naming scheme:
apply the transform (with the row's input as the harness input), then run the original
and the rewritten program in the sandbox on the row's input plus ``--mutants``
type-preserving mutants of it (:func:`codemorph.inputs.mutate_args`, seeded with the
program's own literals) and compare :meth:`Outcome.behaviour` (return value fingerprint or
exception class, final argument state, stdout) and the result's ``repr``.  Inputs on which
the original does not complete (timeout, memory, crash) are not comparable and are counted
apart.

Prints: rows applied (count and %), every refused row with its reason, every behaviour
difference (there must be none), and timings (milliseconds per rewrite, executions per
second).  Exit status 1 when a difference is found or coverage is below ``--min-coverage``.

Usage::

    .venv/bin/python benchmarks/bench_rename_locals.py [--data PATH] [--mutants 20]
        [--schemes random,obfuscated] [--workers 2] [--limit N]
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import sys
import time
from pathlib import Path

from codemorph import Program
from codemorph.sandbox import ExecRequest, Limits, Sandbox
from codemorph.transforms.naming import RenameLocals

DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"


def literals(code: str) -> list:
    """The program's constants (strings, numbers, bytes), read from its AST."""
    out = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes, int, float)) \
                and not isinstance(node.value, bool):
            out.append(node.value)
    return out


def inputs_for(row: dict, n: int, seed: int) -> list[str]:
    """The row's input followed by up to ``n`` mutants of it."""
    try:
        from codemorph.inputs import mutate_args
    except ImportError:  # input mutation not available: the row's own input only
        return [row["input"]]
    rng = random.Random(f"{seed}:{row['id']}")
    try:
        return [row["input"], *mutate_args(row["input"], n, rng, literals(row["code"]))]
    except Exception:  # an input the mutator cannot parse: keep the seed input
        return [row["input"]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--mutants", type=int, default=20, help="mutated inputs per row (default 20)")
    ap.add_argument("--schemes", default="random,obfuscated")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="only the first N rows (0 = all)")
    ap.add_argument("--timeout", type=float, default=2.0, help="seconds per execution (default 2)")
    ap.add_argument("--min-coverage", type=float, default=0.99)
    args = ap.parse_args(argv)

    rows = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    if args.limit:
        rows = rows[: args.limit]
    failed = False
    with Sandbox(Limits(timeout=args.timeout), workers=args.workers) as sb:
        for scheme in args.schemes.split(","):
            transform = RenameLocals(scheme=scheme)
            t0 = time.perf_counter()
            applied, refused, batches, meta = 0, [], [], []
            for row in rows:
                program = Program(row["code"], "f", row["id"])
                result = transform.apply(program, args.seed, inputs=[row["input"]])
                if not result.applied:
                    refused.append((row["id"], result.reason))
                    continue
                applied += 1
                ins = inputs_for(row, args.mutants, args.seed)
                batches.append([ExecRequest(code, "f", a) for a in ins for code in (row["code"], result.source)])
                meta.append((row["id"], ins, result.source))
            t_rewrite = time.perf_counter() - t0

            t1 = time.perf_counter()
            executions = checked = skipped = 0
            diffs = []
            for (rid, ins, new_src), outs in zip(meta, sb.map(batches)):
                executions += len(outs)
                for a_in, a, b in zip(ins, outs[::2], outs[1::2]):
                    if not a.comparable:
                        skipped += 1
                        continue
                    checked += 1
                    if a.behaviour() != b.behaviour() or a.value_repr != b.value_repr:
                        diffs.append((rid, a_in, a, b, new_src))
            t_exec = time.perf_counter() - t1

            pct = 100.0 * applied / len(rows) if rows else 0.0
            print(f"== scheme {scheme}: applied to {applied}/{len(rows)} rows ({pct:.2f}%)")
            print(f"   rewrite: {1000 * t_rewrite / max(len(rows), 1):.1f} ms/row; "
                  f"sandbox: {executions} executions in {t_exec:.1f} s ({executions / max(t_exec, 1e-9):.0f}/s)")
            print(f"   behaviour compared on {checked} (row, input) pairs; {skipped} not comparable "
                  f"(original timed out/crashed/unfingerprintable); differences: {len(diffs)}")
            for rid, reason in refused:
                print(f"   refused {rid}: {reason}")
            for rid, a_in, a, b, new_src in diffs[:20]:
                print(f"   DIFFERS {rid} on f({a_in}): {a.behaviour()} vs {b.behaviour()}\n{new_src}")
            if diffs or (rows and applied / len(rows) < args.min_coverage):
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
