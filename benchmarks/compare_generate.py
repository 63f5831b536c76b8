"""``codemorph generate`` of two source trees side by side: CPU time, and whether they write
the same rows.

Each tree is run by its own interpreter (``--base`` and ``--new``: a venv's ``python`` with
that tree installed, e.g. ``pip install -e``), as a fresh process per run started in the
output directory (so the current directory's ``codemorph`` is not imported instead), alternating base and new for ``--rounds`` rounds
on the same first ``--rows`` CRUXEval rows with the same transforms (default: the four
foundation transforms) and ``--workers`` processes (default 1).  A run's CPU time is the user + system time of the
process and every process it waited for (its sandbox worker and that worker's children),
from ``wait4``.  Printed: each run's CPU and wall seconds, the medians, the CPU ratio
new/base, the variants each tree wrote and its median CPU per written variant (the ratio to
compare when the trees write different numbers of variants), and the differences between the two trees' last outputs: rows (ids, code, inputs,
outputs, kinds, verification statuses), coverage figures, rejects (ids and stages).

Usage::

    python benchmarks/compare_generate.py --base /work/wt/base/.venv/bin/python \\
        --new .venv/bin/python [--rows 300] [--rounds 3] [--transforms a,b,c] [--workers 1] \\
        [--extra-inputs 9] [--min-inputs 5] [--new-recipe FILE.toml]

``--extra-inputs``/``--min-inputs``: ``generate``'s options of those names (default: its defaults).

``--new-recipe``: the new tree runs this recipe instead of ``--transforms`` (e.g. a transform
with an option that reproduces the base tree's form of it, so the two write the same rows).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"
if not DATA.exists():
    DATA = Path("/work/shared/data/cruxeval/cruxeval.jsonl")
FOUR = "rename-locals,dead-code,for-to-while,invert-if"

_RUN = r"""
import sys
from pathlib import Path
import codemorph
print("codemorph from", Path(codemorph.__file__).parent, flush=True)
from codemorph.jobs.generate import GenerateConfig, generate
import json
src, out, transforms, workers = sys.argv[1:5]
kw = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
if transforms.startswith("recipe:"):
    from codemorph.engine.recipes import load_recipe
    config = GenerateConfig.from_recipe(load_recipe(transforms[len("recipe:"):]), workers=int(workers), **kw)
else:
    config = GenerateConfig.from_transforms(tuple(transforms.split(",")), workers=int(workers), **kw)
generate(Path(src), Path(out), config)
"""


def run(python: str, src: Path, out: Path, transforms: str, workers: int = 1,
        config: dict | None = None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one generate run in a fresh process with ``workers``
    worker processes and the :class:`GenerateConfig` fields ``config`` (e.g.
    ``{"extra_inputs": 9}``); raises ``SystemExit`` when the run fails."""
    start = time.perf_counter()
    proc = subprocess.Popen([python, "-c", _RUN, str(src), str(out), transforms, str(workers),
                             json.dumps(config or {})], cwd=out.parent)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{python}: generate failed with exit code {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def _rows(path: Path) -> dict:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        v = r.get("verification") or {}
        out[r["id"]] = {"row": (r["code"], r["input"], r["output"], r["kind"], v.get("status"), v.get("inputs")),
                        "coverage": v.get("coverage")}
    return out


def _rejects(path: Path) -> dict:
    if not path.exists():
        return {}
    return {(r["id"], r.get("stage")): r.get("reason") for r in map(json.loads, path.read_text().splitlines())}


def compare(base: Path, new: Path) -> None:
    """Print how the rows written by the two runs differ."""
    a, b = _rows(base), _rows(new)
    print(f"rows: base {len(a)}, new {len(b)}; only in base {sorted(set(a) - set(b))[:10]}, "
          f"only in new {sorted(set(b) - set(a))[:10]}")
    same = [k for k in a if k in b]
    diff = [k for k in same if a[k]["row"] != b[k]["row"]]
    print(f"rows with a different code/input/output/kind/verification status: {len(diff)}")
    for k in diff[:10]:
        print(f"  {k}: base {a[k]['row'][2:]} new {b[k]['row'][2:]}")
    cov = [k for k in same if a[k]["coverage"] != b[k]["coverage"]]
    print(f"rows with different coverage figures: {len(cov)}")
    for k in cov[:10]:
        print(f"  {k}: base {a[k]['coverage']} new {b[k]['coverage']}")
    ra, rb = _rejects(base.with_suffix(".rejects.jsonl")), _rejects(new.with_suffix(".rejects.jsonl"))
    print(f"rejects: base {len(ra)}, new {len(rb)}; only in base {sorted(set(ra) - set(rb))[:10]}, "
          f"only in new {sorted(set(rb) - set(ra))[:10]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="interpreter of the baseline tree")
    ap.add_argument("--new", required=True, help="interpreter of the tree under test")
    ap.add_argument("--rows", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--transforms", default=FOUR)
    ap.add_argument("--workers", type=int, default=1, help="worker processes of each generate run")
    ap.add_argument("--extra-inputs", type=int, default=None,
                    help="mutated inputs per row (generate's --extra-inputs; default: generate's default)")
    ap.add_argument("--min-inputs", type=int, default=None,
                    help="generate's --min-inputs (default: generate's default)")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--keep", type=Path, default=None, help="directory to keep the outputs in")
    ap.add_argument("--new-recipe", type=Path, default=None, help="a recipe TOML the new tree runs instead of --transforms")
    args = ap.parse_args()

    tmp = Path(args.keep or tempfile.mkdtemp(prefix="compare-generate-"))
    tmp.mkdir(parents=True, exist_ok=True)
    src = tmp / "in.jsonl"
    with open(args.data, encoding="utf-8") as fh:
        src.write_text("".join(line for _, line in zip(range(args.rows), fh)), encoding="utf-8")
    config = {k: v for k, v in (("extra_inputs", args.extra_inputs), ("min_inputs", args.min_inputs))
              if v is not None}
    cpu = {"base": [], "new": []}
    wall = {"base": [], "new": []}
    if args.new_recipe:
        print(f"new tree: recipe {args.new_recipe}")
    print(f"{args.rows} rows, transforms {args.transforms}, {args.workers} workers, {config or 'default inputs'}, "
          f"load average {os.getloadavg()[0]:.2f}")
    for i in range(args.rounds):
        for name, py in (("base", args.base), ("new", args.new)):
            spec = f"recipe:{args.new_recipe.resolve()}" if name == "new" and args.new_recipe else args.transforms
            c, w = run(py, src, tmp / f"{name}.jsonl", spec, args.workers, config)
            cpu[name].append(c)
            wall[name].append(w)
            print(f"round {i + 1} {name}: {c:.1f} CPU s, {w:.1f} wall s (load {os.getloadavg()[0]:.2f})", flush=True)
    mb, mn = statistics.median(cpu["base"]), statistics.median(cpu["new"])
    print(f"median CPU seconds: base {mb:.1f}, new {mn:.1f}; ratio new/base {mn / mb:.2f}")
    print(f"median wall seconds: base {statistics.median(wall['base']):.1f}, "
          f"new {statistics.median(wall['new']):.1f}")
    # variants written (rows other than the originals)
    written = {name: sum(1 for r in map(json.loads, (tmp / f"{name}.jsonl").read_text().splitlines())
                         if r.get("kind") != "original") for name in ("base", "new")}
    if all(written.values()):
        print(f"variants written: base {written['base']}, new {written['new']}; median CPU ms per variant: "
              f"base {1000 * mb / written['base']:.0f}, new {1000 * mn / written['new']:.0f}; "
              f"ratio new/base {(mn / written['new']) / (mb / written['base']):.2f}")
    compare(tmp / "base.jsonl", tmp / "new.jsonl")


if __name__ == "__main__":
    main()
