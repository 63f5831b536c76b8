"""Check a ``generate`` output against the evidence rule of verification, and count the
``weak`` variants and why.

Every variant row whose ``verification.status`` is ``equivalent`` or ``proved`` must have
been compared on at least ``--min-inputs`` inputs (20, the default of ``generate
--min-inputs``); a ``weak`` row must have fewer and a ``reason``.  The script prints, per
transform, the variants written and how many are ``weak``, then the programs behind the weak
rows grouped by the cause their reason names, and exits 1 when a row breaks the rule.

Usage::

    python benchmarks/weak_variants.py OUT.jsonl [--min-inputs 20] [--markdown weak.md]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

#: causes, in the order they are looked for in a weak row's reason (its first match wins)
CAUSES = (
    ("no arguments", "called with no arguments"),
    ("empty container, no element type accepted", "accepted no element type"),
    ("no usable type", "has no type to vary"),
    ("argument not a literal", "is not a literal value"),
    ("not evaluable", "could not be evaluated"),
    ("inputs did not finish", "did not run the original to the end"),
    ("mutants asked for", "mutants asked for"),
    ("few neighbours", "no more type-preserving neighbours"),
)


def cause(reason: str) -> str:
    """The first of :data:`CAUSES` whose text is in ``reason`` (``"other"`` when none)."""
    for name, text in CAUSES:
        if text in reason:
            return name
    return "other"


def check(rows: list[dict], min_inputs: int) -> tuple[list[str], dict[str, Counter], dict[str, set[str]]]:
    """``(problems, per transform counts, programs per cause)`` of the variant rows."""
    problems: list[str] = []
    per: dict[str, Counter] = defaultdict(Counter)
    programs: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        if r.get("kind") != "code-transform":
            continue
        v = r["verification"]
        name = r["id"].split(":", 1)[1]
        per[name]["written"] += 1
        per[name][v["status"]] += 1
        if v["status"] in ("equivalent", "proved") and v["inputs"] < min_inputs:
            problems.append(f"{r['id']}: status {v['status']} on {v['inputs']} inputs (< {min_inputs})")
        if v["status"] == "weak":
            if v["inputs"] >= min_inputs or not v.get("reason"):
                problems.append(f"{r['id']}: weak on {v['inputs']} inputs, reason {v.get('reason')!r}")
            else:
                programs[cause(v["reason"])].add(r["original_id"])
    return problems, per, programs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("output", type=Path, help="a generate output (JSON Lines)")
    ap.add_argument("--min-inputs", type=int, default=20)
    ap.add_argument("--markdown", type=Path, help="write the per-transform table here")
    a = ap.parse_args(argv)
    rows = [json.loads(x) for x in a.output.read_text().splitlines() if x.strip()]
    problems, per, programs = check(rows, a.min_inputs)
    lines = ["| transform | written | weak |", "|---|---:|---:|"]
    tot = Counter()
    for name, c in per.items():
        tot.update(c)
        lines.append(f"| {name} | {c['written']} | {c['weak']} |")
    lines.append(f"| **all** | **{tot['written']}** | **{tot['weak']}** |")
    table = "\n".join(lines)
    print(table)
    for name, ids in sorted(programs.items(), key=lambda kv: -len(kv[1])):
        print(f"{name}: {len(ids)} programs: {', '.join(sorted(ids, key=lambda i: (len(i), i)))}")
    if a.markdown:
        a.markdown.write_text(table + "\n")
    for p in problems[:50]:
        print("PROBLEM", p)
    print(f"{len(problems)} rows break the rule (min {a.min_inputs} inputs for equivalent/proved)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
