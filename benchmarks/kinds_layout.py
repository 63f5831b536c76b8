"""Row kinds on ExeRScope's humaneval, classeval and Avatar benches: convert the CodeMind
layout (``dataset/<bench>/<id>/{main.py,input.txt,output.txt}``) to JSON Lines rows with
``input_kind`` (``call`` for humaneval and classeval, ``stdin`` for Avatar), keep the rows
whose recorded output is what the program gives, run ``generate`` with the four foundation
transforms on them, and print the shares the issue asks for.

Recorded outputs are CodeMind's text: ``str`` of the value for the call benches (compared to
``str(<input>)`` run in the sandbox; the row's ``output`` becomes the value's repr), the
standard output for Avatar (compared after stripping trailing whitespace; the row's ``output``
becomes the exact standard output).  Every program runs in the sandbox only.

    python benchmarks/kinds_layout.py [--layout ../shared/data/codemind-layout/dataset] [-o DIR]
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from pathlib import Path

from codemorph.engine import Program
from codemorph.inputs import kind_mutants, mutate_args
from codemorph.jobs.generate import GenerateConfig, generate
from codemorph.rows import SourceRow
from codemorph.sandbox import Sandbox, request_for, run_view

BENCHES = {"humaneval": "call", "classeval": "call", "Avatar": "stdin"}
FOUR = ("rename-locals", "dead-code", "for-to-while", "invert-if")


def convert(layout: Path, bench: str, sandbox: Sandbox) -> tuple[list[dict], list[str]]:
    """(rows whose recorded output is right, ids of the others with the reason)."""
    kind = BENCHES[bench]
    rows, wrong = [], []
    for d in sorted((layout / bench).iterdir()):
        code = (d / "main.py").read_text(encoding="utf-8")
        text = (d / "input.txt").read_text(encoding="utf-8")
        recorded = (d / "output.txt").read_text(encoding="utf-8")
        if kind == "call":
            expr = text.strip()
            if expr.startswith("Test.test("):  # CodeMind runs ClassEval's Test.test() as Test().test()
                expr = "Test()." + expr[len("Test."):]
            shown, value = sandbox.run_batch([request_for(code, "f", "call", f"str({expr})"),
                                              request_for(code, "f", "call", expr)])
            got = ast.literal_eval(shown.value_repr) if shown.status == "returned" and shown.value_repr else None
            if got is None or got.strip() != recorded.strip() or not value.literal_ok:
                wrong.append(f"{d.name}: {shown.status} {str(got)[:60]!r} vs recorded {recorded.strip()[:60]!r}")
                continue
            rows.append({"id": f"{bench}/{d.name}", "code": code, "input": expr, "output": value.value_repr,
                         "input_kind": "call"})
        else:
            o = sandbox.run(request_for(code, "f", "stdin", text))
            if o.status != "returned" or o.stdout.rstrip() != recorded.rstrip():
                wrong.append(f"{d.name}: {o.status} {o.stdout[:60]!r} vs recorded {recorded[:60]!r}")
                continue
            rows.append({"id": f"{bench}/{d.name}", "code": code, "input": text, "output": o.stdout,
                         "input_kind": "stdin"})
    return rows, wrong


def nearby(out_path: Path, sandbox: Sandbox, n: int = 20, seed: int = 12345) -> tuple[int, int, list[str]]:
    """Every variant against its original on ``n`` fresh inputs near the row's own (another
    mutation seed than verification's): (variants checked, input runs compared, ids that
    behaved differently)."""
    rows = [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines()]
    originals = {r["id"]: r for r in rows if r["kind"] == "original"}
    checked, compared, bad = 0, 0, []
    for v in rows:
        if v["kind"] != "code-transform":
            continue
        o = originals[v["original_id"]]
        row = SourceRow(o["id"], o["code"], o["input"], o["output"], o["entry_point"], 1, input_kind=o["input_kind"])
        view = run_view(row, Program(o["code"]))
        if view.kind == "args":
            try:
                texts = mutate_args(view.input, n, __import__("random").Random(seed))
            except Exception:  # noqa: BLE001 - not a literal: no nearby inputs
                texts = []
        else:
            texts = kind_mutants(Program(o["code"]), [view.input], n, seed, view.kind)
        entry_v = v["entry_point"] if view.kind != "args" or o["input_kind"] == "args" else \
            (v["input"].split("(")[0] if o["input_kind"] == "call" else view.entry_point)
        reqs = []
        for t in texts:
            reqs += [request_for(o["code"], view.entry_point, view.kind, t, cpu_timeout=1.0),
                     request_for(v["code"], entry_v, view.kind, t, cpu_timeout=1.0)]
        outs = sandbox.run_batch(reqs) if reqs else []
        checked += 1
        for a, b in zip(outs[::2], outs[1::2]):
            if not (a.comparable and b.comparable):
                continue
            compared += 1
            if a.behaviour() != b.behaviour():
                bad.append(v["id"])
                break
    return checked, compared, bad


def _has(code: str, kind: type) -> bool:
    return any(isinstance(n, kind) for n in ast.walk(ast.parse(code)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layout", default=str(Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
                                            / "codemind-layout" / "dataset"))
    ap.add_argument("-o", "--out", default="kinds-out")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--benches", nargs="*", default=list(BENCHES))
    ap.add_argument("--nearby-only", action="store_true", help="only check the variants already written in -o")
    args = ap.parse_args(argv)
    layout, out = Path(args.layout), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with Sandbox(workers=1) as sb:
        for bench in args.benches:
            if args.nearby_only:
                checked, compared, bad = nearby(out / f"{bench}.out.jsonl", sb)
                print(f"{bench}: nearby inputs: {checked} variants, {compared} input runs compared, "
                      f"{len(bad)} behaved differently {bad}")
                continue
            rows, wrong = convert(layout, bench, sb)
            total = len(rows) + len(wrong)
            src = out / f"{bench}.jsonl"
            src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            start = time.perf_counter()
            summary = generate(src, out / f"{bench}.out.jsonl",
                               GenerateConfig.from_transforms(FOUR, workers=args.workers))
            written = [json.loads(l) for l in (out / f"{bench}.out.jsonl").read_text().splitlines()]
            originals = {r["id"] for r in written if r["kind"] == "original"}
            by_t = {t: {r["original_id"] for r in written if r["kind"] == "code-transform" and r["transforms"] == [t]}
                    for t in FOUR}
            with_for = {r["id"] for r in rows if _has(r["code"], ast.For)}
            with_if = {r["id"] for r in rows if _has(r["code"], ast.If)}
            n = len(rows)

            def share(a: set, b: set) -> str:
                return f"{len(a & b)}/{len(b)} ({100 * len(a & b) / len(b):.0f}%)" if b else "0/0"

            ids = {r["id"] for r in rows}
            print(f"{bench}: {total} rows, {n} with the recorded output right ({len(wrong)} not: "
                  f"{'; '.join(wrong)[:300]})")
            print(f"  originals {share(originals, ids)}; rename-locals {share(by_t['rename-locals'], ids)}; "
                  f"dead-code {share(by_t['dead-code'], ids)}; for-to-while {share(by_t['for-to-while'], with_for)} "
                  f"of rows with a for; invert-if {share(by_t['invert-if'], with_if)} of rows with an if; "
                  f"{time.perf_counter() - start:.0f} s")
            for t in FOUR:
                from collections import Counter
                print(f"   {t}:", dict(summary.per_transform[t]))
            checked, compared, bad = nearby(out / f"{bench}.out.jsonl", sb)
            print(f"  nearby inputs: {checked} variants, {compared} input runs compared, "
                  f"{len(bad)} behaved differently {bad}")
            rejects = (out / f"{bench}.out.rejects.jsonl").read_text().splitlines()
            for line in rejects:
                r = json.loads(line)
                print("   reject", r.get("id"), r.get("stage"), (r.get("reason") or "")[:200])
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
