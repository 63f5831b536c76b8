"""Replay every row ``perturb`` writes under a plain interpreter: run ``codemorph perturb`` on a
layout folder (a CodeMind/ExeRScope bench folder such as ``dataset/Avatar``, or any input
``perturb`` reads), then run each written row as its bench would, outside codemorph:

* a ``stdin`` row: ``python main.py < input`` in a fresh temporary directory holding only
  ``main.py``;
* a ``call`` row: ``python check.py`` there, where ``check.py`` runs ``main.py`` as a module
  and prints the ``repr`` of the row's call expression (ClassEval's ``Test().test()``);
* an ``args`` row: the same with ``<entry_point>(<input>)``.

Every run is a separate subprocess (never in this process) of this interpreter with
CPython's defaults: no option, ``PYTHON*`` environment variables removed (so a random hash
seed and the default recursion limit of 1,000).  A row replays when the recorded outcome is
what that run gives: for a row without exception its standard output verbatim (``stdin``)
or a value equal to its recorded output (``call``/``args``); for an exception row the class
of the exception the run ended with (the last traceback on standard error).

Prints a table (rows read, findings written, replayed ok, mismatches, and the programs with
an exception-raising input), then each mismatch.  Exit status 1 when a row mismatches.

    python benchmarks/perturb_replay.py ../shared/data/codemind-layout/dataset/Avatar \\
        [-o DIR] [--workers 2] [--budget 1500] [--timeout 10]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from codemorph.jobs.perturb import PerturbConfig, perturb_dataset
from codemorph.perturb import Budget

#: runs main.py as a plain script would define it, then prints the repr of the expression
#: in sys.argv[1] evaluated in its namespace (a call row's input, or entry(<args>))
CHECK = '''import sys
g = {"__name__": "__main__", "__builtins__": __builtins__}
with open("main.py", encoding="utf-8") as fh:
    source = fh.read()
exec(compile(source, "main.py", "exec"), g)
value = eval(compile(sys.argv[1], "<input>", "eval"), g)
sys.stdout.write("\\0" + repr(value))
'''


def plain_env() -> dict[str, str]:
    """The environment without ``PYTHON*`` variables: CPython's defaults."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}


def raised_class(stderr: str) -> str | None:
    """The class name of the exception a plain run ended with: the first unindented line
    after the last ``Traceback (most recent call last):`` of ``stderr``, up to ``:``, its
    last dotted part (``json.decoder.JSONDecodeError`` -> ``JSONDecodeError``)."""
    lines = stderr.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last):")]
    if not starts:
        return None
    for line in lines[starts[-1] + 1:]:
        if line and not line[0].isspace():
            return line.split(":", 1)[0].strip().rsplit(".", 1)[-1]
    return None


def replay(row: dict, timeout: float = 10.0) -> tuple[bool, str]:
    """Run one written row as its bench runs it (see the module docstring), in a fresh
    temporary directory and a subprocess.  Returns ``(replays, what the plain run gave)``."""
    kind = row.get("input_kind") or "args"
    with tempfile.TemporaryDirectory(prefix="codemorph-replay-") as tmp:
        Path(tmp, "main.py").write_text(row["code"], encoding="utf-8")
        if kind == "stdin":
            argv, stdin = [sys.executable, "main.py"], row["input"]
        else:
            Path(tmp, "check.py").write_text(CHECK, encoding="utf-8")
            expr = row["input"] if kind == "call" else f"{row.get('entry_point') or 'f'}({row['input']})"
            argv, stdin = [sys.executable, "check.py", expr], ""
        try:
            p = subprocess.run(argv, input=stdin.encode("utf-8"), cwd=tmp, env=plain_env(), capture_output=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return False, f"no end within {timeout:g} s"
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    want = (row.get("exception") or {}).get("type")
    if p.returncode != 0:
        got = raised_class(err)
        return want is not None and got == want, f"raised {got} (exit {p.returncode})"
    if want is not None:
        return False, f"ended normally, printing {out[:80]!r}"
    if kind == "stdin":
        return out == row["output"], f"printed {out[:80]!r}"
    shown = out.rsplit("\0", 1)[-1]
    try:
        same = eval(shown, {}) == eval(row["output"], {})  # noqa: S307 - literals the rows and the run wrote
    except Exception:  # noqa: BLE001 - a repr that is no literal: compare the text
        same = shown == row["output"]
    return same, f"returned {shown[:80]}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("layout", help="a layout folder (dataset/<bench>) or any input perturb reads")
    ap.add_argument("-o", "--out", default=None, help="folder for perturb's rows (default: a temporary folder)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--budget", type=int, default=1500, help="executions per program (perturb --budget)")
    ap.add_argument("--seconds", type=float, default=20.0, help="seconds per program (perturb --seconds)")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per plain replay run")
    ap.add_argument("--allow-type-change", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="codemorph-perturb-") as default_out:
        out_dir = Path(args.out or default_out)
        out_dir.mkdir(parents=True, exist_ok=True)
        out = out_dir / "perturb.jsonl"
        start = time.perf_counter()
        summary = perturb_dataset(args.layout, out, PerturbConfig(
            workers=args.workers, budget=Budget(executions=args.budget, seconds=args.seconds),
            allow_type_change=args.allow_type_change))
        searched = time.perf_counter() - start
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        rejects = [json.loads(line) for line in summary.rejects_path.read_text(encoding="utf-8").splitlines()]
    start = time.perf_counter()
    results = [(r, *replay(r, args.timeout)) for r in rows]
    replayed = time.perf_counter() - start
    bad = [(r, got) for r, ok, got in results if not ok]
    raising = {r["original_id"] for r in rows if r.get("exception")}
    classes = Counter(r["exception"]["type"] for r in rows if r.get("exception"))
    print(f"perturb on {args.layout}: {searched:.0f} s; plain replay of every written row: {replayed:.0f} s")
    print("| rows | findings | replayed ok | mismatches | programs with an exception-raising input |")
    print("|---:|---:|---:|---:|---:|")
    print(f"| {summary.rows_read} | {len(rows)} | {len(rows) - len(bad)} | {len(bad)} | "
          f"{len(raising)} of {summary.programs_searched} searched |")
    print("exception rows by class: " + (", ".join(f"{k} {v}" for k, v in sorted(classes.items())) or "none"))
    for rej in rejects:
        print(f"not searched: {rej.get('id')}: {(rej.get('reason') or '')[:160]}")
    for r, got in bad:
        want = f"raises {r['exception']['type']}" if r.get("exception") else f"output {r['output'][:80]!r}"
        print(f"MISMATCH {r['id']}: row says {want}; plain run {got}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
