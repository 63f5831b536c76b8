"""Count the ``not <comparison>`` forms in a generated dataset's variants.

    python benchmarks/negated_comparisons.py OUT.jsonl [--transform invert-if] [--show 5]

For every variant row (``kind`` other than ``original``) of the given transform: whether its
code holds ``not a OP b`` with a single ``<``, ``<=``, ``>``, ``>=``, ``==`` or ``!=`` (the
form people do not write: they write ``a >= b``), and whether it holds more of them than its
original (the transform wrote one).  Also prints the variants' verification statuses and how
many were proved.  Reads the file only (no program is run).
"""

from __future__ import annotations

import argparse
import ast
import collections
import json

_OPS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


def negated_comparisons(code: str) -> list[str]:
    """The ``not a OP b`` expressions of ``code`` (source text), in ``ast.walk`` order."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Compare) \
                and len(node.operand.ops) == 1 and isinstance(node.operand.ops[0], _OPS):
            found.append(ast.unparse(node))
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path")
    ap.add_argument("--transform", default="invert-if")
    ap.add_argument("--show", type=int, default=5, help="examples of introduced forms to print")
    args = ap.parse_args()
    rows = [json.loads(line) for line in open(args.path, encoding="utf-8") if line.strip()]
    originals = {r["id"]: r for r in rows if r.get("kind") == "original"}
    variants = [r for r in rows if r.get("kind") != "original" and args.transform in r.get("transforms", [])]
    holding = introduced = 0
    statuses: collections.Counter[str] = collections.Counter()
    proved = 0
    examples = []
    for r in variants:
        mine = negated_comparisons(r["code"])
        base = negated_comparisons(originals[r["original_id"]]["code"]) if r.get("original_id") in originals else []
        holding += bool(mine)
        if len(mine) > len(base):
            introduced += 1
            if len(examples) < args.show:
                examples.append(f"{r['id']}: {', '.join(m for m in mine if m not in base) or mine[0]}")
        verification = r.get("verification") or {}
        statuses[verification.get("status", "?")] += 1
        proved += bool(verification.get("proved"))
    print(f"variants of {args.transform}: {len(variants)}")
    print(f"holding `not <comparison>`: {holding}; with more than their original: {introduced}")
    print(f"verification: {dict(sorted(statuses.items()))}; proved: {proved}")
    for e in examples:
        print("  " + e)


if __name__ == "__main__":
    main()
