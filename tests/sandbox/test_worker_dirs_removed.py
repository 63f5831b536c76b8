"""Each sandbox worker's working directory (``<tmp>/codemorph-sandbox-*``) is removed when the
worker stops: on close, when its zygote was killed and replaced, and -- for a host killed by
SIGKILL, which cannot clean up -- by the next :func:`codemorph.sandbox.remove_stale_dirs`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from codemorph.sandbox.pool import DIR_PREFIX, ExecRequest, Sandbox, remove_stale_dirs

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

ONE = ExecRequest("def f():\n    return 1\n", "f", "")


def _dirs(sb: Sandbox) -> list[str]:
    return [w.tmp for w in sb._all]


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


def _wait_gone(pid: int, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(pid), f"process {pid} still running"


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """Sandboxes of this test make their directories in ``tmp_path/t`` (others' are not touched)."""
    d = tmp_path / "t"
    d.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    return d


def test_the_directories_are_gone_after_close(private_tmp):
    with Sandbox() as sb:
        outs = sb.run_batch([ONE])
        assert outs[0].value_repr == "1"
        sb.run_batch([ONE], hash_seed=3)  # a worker of another hash seed: a directory of its own
        dirs = _dirs(sb)
        assert len(dirs) >= 2 and all(Path(d).is_dir() and Path(d).parent == private_tmp for d in dirs)
    assert [d for d in dirs if os.path.lexists(d)] == []
    assert list(private_tmp.iterdir()) == []


def test_the_directory_of_a_killed_zygote_goes_with_it(private_tmp):
    with Sandbox() as sb:
        assert sb.run(ONE).value_repr == "1"
        (w,) = sb._all
        old = w.tmp
        os.kill(w.proc.pid, signal.SIGKILL)
        _wait_gone(w.proc.pid)
        # the host finds its worker dead, kills what is left, removes its directory and
        # runs the batch again on a new worker, in a new directory
        assert sb.run(ONE).value_repr == "1"
        assert sb.retried_batches == 1
        assert not os.path.lexists(old)
        (new,) = _dirs(sb)
        assert new != old and Path(new).is_dir()
    assert list(private_tmp.iterdir()) == []


def test_a_worker_that_cannot_start_leaves_no_directory(private_tmp, tmp_path):
    sb = Sandbox(python=str(tmp_path / "no-such-python"))
    with pytest.raises(OSError):
        sb.run(ONE)
    sb.close()
    assert list(private_tmp.iterdir()) == []


HOST = textwrap.dedent("""
    import json, sys, time
    from codemorph.sandbox import ExecRequest, Sandbox
    sb = Sandbox()
    assert sb.run(ExecRequest("def f():\\n    return 1\\n", "f", "")).value_repr == "1"
    (w,) = sb._all
    print(json.dumps({"dir": w.tmp, "zygote": w.proc.pid}), flush=True)
    time.sleep(120)
""")


def test_the_directory_of_a_killed_host_is_removed_by_the_next_sweep(private_tmp):
    env = {**os.environ, "TMPDIR": str(private_tmp)}
    host = subprocess.Popen([sys.executable, "-c", HOST], stdout=subprocess.PIPE, env=env, text=True)
    try:
        info = json.loads(host.stdout.readline())
    finally:
        host.kill()  # SIGKILL: no close(), no atexit
        host.wait(10)
    dead = info["dir"]
    _wait_gone(info["zygote"])  # the zygote ends when its pipe closes ...
    assert Path(dead).is_dir()  # ... and nobody removed its directory

    # beside it: a live sandbox's directory (its host holds the lock), a directory without a
    # lock whose process is alive (a host of an earlier codemorph), a recent one, another name
    with Sandbox() as live:
        assert live.run(ONE).value_repr == "1"
        (mine,) = _dirs(live)
        legacy = private_tmp / f"{DIR_PREFIX}legacy"
        legacy.mkdir()
        zygote_like = subprocess.Popen(["sleep", "60"], cwd=legacy)
        recent = private_tmp / f"{DIR_PREFIX}recent"
        recent.mkdir()
        other = private_tmp / "someone-else"
        other.mkdir()
        old = time.time() - 3600
        for d in (mine, legacy, other, dead):
            os.utime(d, (old, old))
        try:
            assert remove_stale_dirs(str(private_tmp)) == [dead]
            assert sorted(p.name for p in private_tmp.iterdir()) == sorted(
                [Path(mine).name, legacy.name, recent.name, other.name])
        finally:
            zygote_like.kill()
            zygote_like.wait(10)
        assert remove_stale_dirs(str(private_tmp)) == [str(legacy)]  # its process is gone now
        assert remove_stale_dirs(str(private_tmp), min_age=0) == [str(recent)]
        assert live.run(ONE).value_repr == "1" and Path(mine).is_dir()
    assert sorted(p.name for p in private_tmp.iterdir()) == ["someone-else"]
