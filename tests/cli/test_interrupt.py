"""An interrupted run (Ctrl-C or SIGTERM) says so and how to resume, and exits 130."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent / "codemorph"

# rows slow enough (a loop of 200,000 iterations, traced, on ~50 inputs) that the run is
# still going when the first row has been written
ROWS = 6
SLOW = "def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_interrupted_generate_reports_and_resumes(tmp_path, sig) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": f"r{k}", "code": SLOW, "input": str(200_000 + k),
                                       "output": str(sum(range(200_000 + k)))}) + "\n" for k in range(ROWS)))
    out = tmp_path / "out.jsonl"
    cmd = [str(BIN), "generate", str(src), "-o", str(out), "-t", "rename-locals", "--workers", "1"]
    p = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (out.exists() and out.read_text().count("\n") >= 2) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert p.poll() is None, "the run ended before it could be interrupted"
        p.send_signal(sig)
        stdout, stderr = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 130
    assert f"error: generate interrupted; the rows written so far are in {out}" in " ".join(stderr.split())
    assert "leaked" not in stderr and "Traceback" not in stderr
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert 2 <= len(written) < 2 * ROWS
    if sig != signal.SIGTERM:
        return
    # the same command with --resume ends the job: every row once
    done = subprocess.run(cmd + ["--resume"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert sorted(ids) == sorted([f"r{k}" for k in range(ROWS)] + [f"r{k}:rename-locals" for k in range(ROWS)])
