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


def _marked(marker: str) -> dict[int, str]:
    """Live processes whose environment holds ``marker`` (every process a test's run
    started inherits it: workers, sandbox zygotes, their children), with their command lines."""
    found = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if marker.encode() in (d / "environ").read_bytes() and alive(int(d.name)):
                found[int(d.name)] = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("workers", [1, 2])
def test_sigkill_of_generate_ends_sandboxes_running_programs(tmp_path, workers):
    # the programs loop until their 120 s limit: a zygote busy watching its child used to
    # notice its host's death only after that limit (and its child lived as long)
    rows = [{"id": f"loop{i}", "code": "def f(x):\n    while True: pass\n", "input": str(i), "output": "0"}
            for i in range(4)]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    marker = f"CODEMORPH_TEST_RUN=kill-{os.getpid()}-{tmp_path.name}"
    env = {**os.environ, marker.split("=")[0]: marker.split("=")[1]}
    cli = Path(sys.executable).with_name("codemorph")
    proc = subprocess.Popen([str(cli), "generate", str(src), "-o", str(tmp_path / "out.jsonl"), "--workers",
                             str(workers), "--timeout", "120", "-t", "rename-locals"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # every worker's zygote and the child running a program
            seen = _marked(marker)
            if sum("_worker.py" in c for c in seen.values()) >= 2 * workers:
                break
            time.sleep(0.2)
        assert sum("_worker.py" in c for c in seen.values()) >= 2 * workers, seen
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _marked(marker):
            time.sleep(0.2)
        assert _marked(marker) == {}
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in _marked(marker):  # only processes of this test's run carry its marker
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
