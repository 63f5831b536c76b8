"""``codemorph generate`` run as process 1 (a container's first process, with no init) writes
its rows with several workers: a worker whose parent is process 1 is not taken for an orphan."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROWS = [{"id": f"r{i}", "code": "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n",
         "input": f"[{i}, 2, 3]", "output": str(i + 5)} for i in range(4)]


def _unshare_works() -> bool:
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-pf", "--mount-proc", sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, timeout=60)
    return probe.returncode == 0 and probe.stdout.strip() == "1"


def test_generate_as_process_one_writes_every_row_with_two_workers(tmp_path: Path):
    if not _unshare_works():
        pytest.skip("a new PID namespace cannot be made here (unshare -pf needs Linux and the right to unshare)")
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(["unshare", "-pf", "--mount-proc", sys.executable, "-m", "codemorph.cli", "generate", str(src),
                           "-o", str(out), "-t", "rename-locals", "--workers", "2"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["id"] for r in rows if r["kind"] == "original") == ["r0", "r1", "r2", "r3"]
    assert {r["output"] for r in rows if r["kind"] == "original"} == {"5", "6", "7", "8"}
    assert sorted(r["id"] for r in rows if r["kind"] != "original") == [f"r{i}:rename-locals" for i in range(4)]
