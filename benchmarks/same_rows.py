"""The input rows on which two ``generate`` outputs agree, written as a new input file, so that
two trees whose transforms have changed on purpose can still be timed on the same rows.

``compare_generate.py --keep DIR`` leaves ``DIR/base.jsonl`` (the baseline tree's rows) and
``DIR/new.jsonl`` (the tree under test); this script groups both by ``original_id`` and keeps
an input row when the two trees wrote exactly the same rows for it: the same ids, and for
each the same code, input, output, kind, verification status and count of compared inputs
(coverage figures are compared and counted but do not exclude a row: issue #17 lets them
differ where the tracer counts differently).  Then::

    python benchmarks/same_rows.py DIR/base.jsonl DIR/new.jsonl IN.jsonl -o same.jsonl
    python benchmarks/compare_generate.py --base ... --new ... --data same.jsonl --rows 100000

times both trees on those rows only; the second run's own comparison should then find no
differing row.

Arguments: ``base`` and ``new`` (JSON Lines written by ``codemorph generate``), ``source``
(the input rows both were generated from, JSON Lines with an ``id`` each); ``-o`` the file
to write.  Prints how many input rows agree, differ, or are missing from either output.
Raises ``SystemExit`` when a file cannot be read.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def _groups(path: Path) -> tuple[dict[str, dict], dict[str, dict]]:
    """``({original_id: {row id: fields}}, {original_id: {row id: coverage}})`` of one output."""
    rows: dict[str, dict] = defaultdict(dict)
    cov: dict[str, dict] = defaultdict(dict)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SystemExit(f"cannot read {path}: {exc}") from None
    for line in lines:
        r = json.loads(line)
        v = r.get("verification") or {}
        key = r.get("original_id", r["id"])
        rows[key][r["id"]] = (r["code"], r["input"], r["output"], r.get("kind"), v.get("status"), v.get("inputs"))
        cov[key][r["id"]] = v.get("coverage")
    return rows, cov


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("source", type=Path)
    ap.add_argument("-o", "--out", type=Path, required=True)
    args = ap.parse_args()
    a, ca = _groups(args.base)
    b, cb = _groups(args.new)
    kept, differ, missing, coverage = [], 0, 0, 0
    for line in args.source.read_text(encoding="utf-8").splitlines():
        rid = json.loads(line)["id"]
        if rid not in a or rid not in b:
            missing += 1
        elif a[rid] != b[rid]:
            differ += 1
        else:
            kept.append(line)
            coverage += ca[rid] != cb[rid]
    args.out.write_text("".join(x + "\n" for x in kept), encoding="utf-8")
    print(f"{len(kept)} input rows with the same rows in both outputs ({coverage} of them with other "
          f"coverage figures), {differ} with different rows, {missing} missing from an output; wrote {args.out}")


if __name__ == "__main__":
    main()
