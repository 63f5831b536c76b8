"""Scale-out of ``codemorph generate``: 1 and 2 local workers, and Dask on a 2-worker LocalCluster.

For each configuration, a fresh Python process runs :func:`codemorph.generate.generate` over
the first ``--rows`` CRUXEval rows with the four transforms and reports

* throughput: input rows per second (wall clock, after the workers started);
* peak memory per worker: the largest peak resident set size (``ru_maxrss``, MiB) of any
  process the run started: pool workers, Dask worker processes, sandbox zygotes and their
  forked children (``getrusage(RUSAGE_CHILDREN)`` once they are all reaped);
* whether the output is byte-identical to the 1-worker local run.

Usage::

    python benchmarks/bench_scale.py [--rows 100] [--configs local1,local2,dask2]

Dask needs ``pip install 'codemorph[dask]'``; the ``dask2`` configuration is skipped without it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"
FOUR = ("rename-locals", "dead-code", "for-to-while", "invert-if")


def run_one(config_name: str, in_path: str, out_path: str) -> dict:
    """Run one configuration in this process; returns its measurements."""
    from codemorph.generate import GenerateConfig, generate
    from codemorph.sandbox import Limits

    workers = 2 if config_name.endswith("2") else 1
    config = GenerateConfig.from_transforms(FOUR, workers=1 if config_name.startswith("dask") else workers,
                                            extra_inputs=20, limits=Limits())
    cluster = client = executor = None
    if config_name.startswith("dask"):
        import distributed

        from codemorph.executors import DaskExecutor

        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
        client = distributed.Client(cluster)
        executor = DaskExecutor(client)
    start = time.perf_counter()
    summary = generate(in_path, out_path, config, executor=executor)
    seconds = time.perf_counter() - start
    if client is not None:
        client.close()
        cluster.close()
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    return {"config": config_name, "rows": summary.rows_read, "seconds": seconds,
            "rows_per_second": summary.rows_read / seconds, "peak_worker_mib": peak,
            "sha256": hashlib.sha256(Path(out_path).read_bytes()).hexdigest()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100)
    ap.add_argument("--configs", default="local1,local2,dask2")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--in", dest="in_path", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.in_path, args.out)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        inp = Path(tmp) / "in.jsonl"
        inp.write_text("".join(DATA.read_text().splitlines(keepends=True)[: args.rows]))
        results = []
        for name in args.configs.split(","):
            if name.startswith("dask"):
                try:
                    import distributed  # noqa: F401
                except ImportError:
                    print(f"{name}: skipped (dask.distributed not installed)")
                    continue
            out = Path(tmp) / f"{name}.jsonl"
            res = subprocess.run([sys.executable, __file__, "--one", name, "--in", str(inp), "--out", str(out)],
                                 capture_output=True, text=True, check=True)
            results.append(json.loads(res.stdout.strip().splitlines()[-1]))
        base = results[0]["sha256"] if results else None
        print(f"{'config':<8} {'rows':>5} {'seconds':>8} {'rows/s':>7} {'peak MiB/worker':>16}  same output")
        for r in results:
            print(f"{r['config']:<8} {r['rows']:>5} {r['seconds']:>8.1f} {r['rows_per_second']:>7.2f} "
                  f"{r['peak_worker_mib']:>16.0f}  {r['sha256'] == base}")


if __name__ == "__main__":
    main()
