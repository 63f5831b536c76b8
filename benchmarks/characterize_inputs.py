"""Dump, for every CRUXEval input, what the input-mutation engine returns: the mutants and
edge cases of verification-input generation (:func:`codemorph.inputs.mutate_args`,
:func:`codemorph.inputs.edge_cases`) and the perturbation search's neighbours, priority and
paired neighbours and random steps (:class:`MutationSpace`), as one JSON line per row.

Runs against whichever tree's ``codemorph`` the interpreter imports (old tree: ``/work/base``
with its venv), so two dumps can be compared with ``cmp``:

    python benchmarks/characterize_inputs.py DATA.jsonl -o OUT.jsonl [--limit N]
"""
from __future__ import annotations

import argparse
import itertools
import json
import random

from codemorph import Program
from codemorph.inputs import edge_cases, format_args, mutate_args, parse_args
from codemorph.perturb.search import program_constants, program_elements, program_tokens
from codemorph.verification import program_calls, program_literals

try:
    from codemorph.inputs.mutation import MutationSpace
except ImportError:  # the old tree
    from codemorph.perturb.mutation import MutationSpace


def fmt(a) -> str:
    try:
        return format_args(a[0], a[1])
    except Exception as e:  # noqa: BLE001
        return f"<{type(e).__name__}> {a!r}"


def row_dump(row: dict) -> dict:
    try:
        return _row_dump(row)
    except Exception as e:  # noqa: BLE001  (an input that is not a literal: the error is the dump)
        return {"id": row["id"], "error": f"{type(e).__name__}: {e}"}


def _row_dump(row: dict) -> dict:
    prog = Program(row["code"])
    text = row["input"]
    lits, hints = program_literals(prog), program_calls(prog)
    out: dict = {"id": row["id"]}
    for seed in (0, 1, 7):
        out[f"mut49_{seed}"] = mutate_args(text, 49, random.Random(seed), lits, hints)
    out["mut3"] = mutate_args(text, 3, random.Random(5), lits, hints)
    out["mut499"] = mutate_args(text, 499, random.Random(11), lits, hints)
    out["mut_nolit"] = mutate_args(text, 20, random.Random(3))
    out["edges"] = edge_cases(text, lits, hints)
    out["edges_fill"] = edge_cases(text, lits, hints, fill=34)
    seed_args = parse_args(text)
    mod = prog.module
    for tc in (False, True):
        sp = MutationSpace(seed_args, program_constants(mod), tc, tokens=program_tokens(mod),
                           elements=program_elements(mod))
        local = MutationSpace(seed_args, (), tc)
        pri = list(itertools.islice(sp.priority_neighbours(seed_args), 64))
        out[f"nb_{tc}"] = [fmt(a) for a in itertools.islice(sp.neighbours(seed_args), 3000)]
        out[f"pri_{tc}"] = [fmt(a) for a in pri]
        out[f"pair_{tc}"] = [fmt(a) for a in itertools.islice(sp.paired_neighbours(seed_args, pri), 400)]
        rng = random.Random(42)
        out[f"step_{tc}"] = [fmt(sp.mutate(seed_args, rng, 1 + k % 3)) for k in range(60)]
        out[f"local_{tc}"] = [fmt(local.mutate(seed_args, rng, 1 + k % 2)) for k in range(30)]
        out[f"localnb_{tc}"] = [fmt(a) for a in itertools.islice(local.neighbours(seed_args), 500)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--limit", type=int, default=0, help="stop before this row (0: all)")
    ap.add_argument("--start", type=int, default=0, help="first row (appends to --out when > 0)")
    a = ap.parse_args()
    with open(a.data) as f, open(a.out, "a" if a.start else "w") as w:
        for i, line in enumerate(f):
            if a.limit and i >= a.limit:
                break
            if i < a.start:
                continue
            w.write(json.dumps(row_dump(json.loads(line)), ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
