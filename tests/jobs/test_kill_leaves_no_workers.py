"""A ``kill -9`` of ``codemorph generate`` leaves no worker or sandbox process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import alive, descendants


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
def test_sigkill_of_generate_takes_its_workers_and_sandboxes_along(tmp_path):
    slow = "def f(n):\n    t = 0\n    for i in range(n):\n        t += i % 7\n    return t\n"
    rows = [{"id": f"r{i}", "code": slow, "input": "200000", "output": str(sum(i % 7 for i in range(200000)))}
            for i in range(40)]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    cli = Path(sys.executable).with_name("codemorph")
    proc = subprocess.Popen([str(cli), "generate", str(src), "-o", str(tmp_path / "out.jsonl"), "--workers", "2",
                             "-t", "rename-locals"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        procs: set[int] = set()
        while time.monotonic() < deadline:  # the two workers and their sandbox zygotes are up
            procs = descendants(proc.pid)
            if len(procs) >= 4 and (tmp_path / "out.jsonl").exists():
                break
            time.sleep(0.2)
        assert len(procs) >= 4, procs
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(alive(p) for p in procs):
            time.sleep(0.2)
        assert [p for p in procs if alive(p)] == []
    finally:
        if proc.poll() is None:
            proc.kill()
