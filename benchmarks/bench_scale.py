"""Scale-out of ``codemorph generate``: 1 and 2 local workers, and Dask on a 2-worker LocalCluster.

For each configuration, a fresh Python process runs :func:`codemorph.generate.generate` over
the first ``--rows`` CRUXEval rows with the four transforms and reports

* throughput: input rows per second (wall clock, after the workers started);
* peak memory per worker: the largest peak resident set size (``ru_maxrss``, MiB) of any
  process the run started: pool workers, Dask worker processes, sandbox zygotes and their
  forked children (``getrusage(RUSAGE_CHILDREN)`` once they are all reaped);
* whether the output is byte-identical to the 1-worker local run.

``--memory`` measures instead whether the host's memory stays flat as the corpus grows:
CRUXEval repeated with new ids to each size of ``--sizes`` (JSON Lines, and Parquet when
pyarrow is installed), then, each in a fresh process, the host's peak resident set size
(``ru_maxrss`` of the process itself, MiB) and CPU seconds for

* ``list``: ``list(read_rows(...))``, i.e. every row held at once;
* ``stream``: :func:`codemorph.executors.map_rows` over ``read_rows(...)`` on 2 local
  worker processes, each row's result written with :class:`~codemorph.dataset.RowWriter`
  (the row work is a cheap stand-in: parse the program with ``ast``, no sandbox), so
  what is measured is the reading, the ordered in-flight window and the writing.

Usage::

    python benchmarks/bench_scale.py [--rows 100] [--configs local1,local2,dask2]
    python benchmarks/bench_scale.py --memory [--sizes 800,8000,80000]

Dask needs ``pip install 'codemorph[dask]'``; the ``dask2`` configuration is skipped without it.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
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
    from codemorph.jobs.generate import GenerateConfig, generate
    from codemorph.sandbox.pool import Limits

    workers = 2 if config_name.endswith("2") else 1
    config = GenerateConfig.from_transforms(FOUR, workers=1 if config_name.startswith("dask") else workers,
                                            extra_inputs=20, limits=Limits())
    cluster = client = executor = None
    if config_name.startswith("dask"):
        import distributed

        from codemorph.jobs.executors import DaskExecutor

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


def parse_row(state, row) -> dict:
    """The stand-in row work of ``--memory``: parse the program (no execution)."""
    return {"id": row.id, "nodes": sum(1 for _ in ast.walk(ast.parse(row.code)))}


def memory_one(mode: str, in_path: str, out_path: str) -> dict:
    """One ``--memory`` measurement in this (fresh) process."""
    from codemorph.rows.dataset import RowWriter, read_rows
    from codemorph.jobs.executors import LocalExecutor, map_rows

    start, cpu0 = time.perf_counter(), time.process_time()
    n = 0
    if mode == "list":
        rows = list(read_rows(in_path))
        n = len(rows)
    else:
        with RowWriter(out_path) as w:
            for row, res in map_rows(parse_row, read_rows(in_path), LocalExecutor(rows_per_task=32), workers=2):
                w.write(res if res is not None else {"id": None})
                n += 1
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"mode": mode, "rows": n, "seconds": time.perf_counter() - start,
            "cpu_seconds": own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime,
            "host_peak_mib": own.ru_maxrss / 1024, "worker_peak_mib": kids.ru_maxrss / 1024}


def corpus(path: Path, size: int, parquet: bool) -> Path:
    """CRUXEval repeated with new ids (``sample_12``, ``sample_12~1``, ...) to ``size`` rows."""
    base = [json.loads(x) for x in DATA.read_text().splitlines()]
    rows = ({**base[i % len(base)], "id": base[i % len(base)]["id"] + (f"~{i // len(base)}" if i >= len(base) else "")}
            for i in range(size))
    if parquet:
        import pyarrow as pa
        import pyarrow.parquet as pq

        with pq.ParquetWriter(path, pa.schema([(k, pa.string()) for k in base[0]])) as w:
            chunk = []
            for r in rows:
                chunk.append(r)
                if len(chunk) == 4096:
                    w.write_table(pa.Table.from_pylist(chunk))
                    chunk = []
            if chunk:
                w.write_table(pa.Table.from_pylist(chunk))
    else:
        with open(path, "w") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
    return path


def memory(sizes: list[int]) -> None:
    """The ``--memory`` table (see the module docstring)."""
    try:
        import pyarrow  # noqa: F401
        formats = ("jsonl", "parquet")
    except ImportError:
        formats = ("jsonl",)
    print(f"load average: {os.getloadavg()[0]:.2f}")
    print(f"{'format':<8} {'mode':<7} {'rows':>7} {'MB in':>6} {'wall s':>7} {'CPU s':>6} {'host peak MiB':>14} "
          f"{'worker peak MiB':>16}")
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in formats:
            for size in sizes:
                inp = corpus(Path(tmp) / f"c{size}.{fmt}", size, fmt == "parquet")
                for mode in ("list", "stream"):
                    res = subprocess.run([sys.executable, __file__, "--memory-one", mode, "--in", str(inp),
                                          "--out", str(Path(tmp) / "out.jsonl")],
                                         capture_output=True, text=True, check=True)
                    r = json.loads(res.stdout.strip().splitlines()[-1])
                    print(f"{fmt:<8} {mode:<7} {r['rows']:>7} {inp.stat().st_size / 1e6:>6.1f} {r['seconds']:>7.1f} "
                          f"{r['cpu_seconds']:>6.1f} {r['host_peak_mib']:>14.0f} "
                          f"{(r['worker_peak_mib'] if mode == 'stream' else 0):>16.0f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100)
    ap.add_argument("--configs", default="local1,local2,dask2")
    ap.add_argument("--memory", action="store_true", help="host memory as the corpus grows (see the docstring)")
    ap.add_argument("--sizes", default="800,8000,80000", help="corpus sizes (rows) of --memory")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--memory-one", help=argparse.SUPPRESS)
    ap.add_argument("--in", dest="in_path", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.in_path, args.out)))
        return
    if args.memory_one:
        print(json.dumps(memory_one(args.memory_one, args.in_path, args.out)))
        return
    if args.memory:
        memory([int(x) for x in args.sizes.split(",")])
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
