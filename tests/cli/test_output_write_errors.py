"""An output ``generate`` cannot write: a full disk ends the run with one line saying what
to do (the rows written so far are kept, ``--resume`` continues), and an output that is not a
regular file (a device such as ``/dev/full``, a fifo) is refused before anything is created."""

from __future__ import annotations

import errno
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import codemorph.rows.dataset
from codemorph.cli.main import app
from paths import PACKAGE_DATA

ROWS = PACKAGE_DATA / "default.jsonl"
ARGS = ["-t", "rename-locals", "-t", "for-to-while", "--extra-inputs", "3", "--workers", "1"]


class _SmallDisk:
    """Stands in for a file system with ``room`` bytes left for the output files: the write
    that would pass it fails with ``ENOSPC``, as a full disk's does."""

    def __init__(self, room: int) -> None:
        self.room = room

    def open(self, path, mode="r", *a, **kw):
        fh = io.open(path, mode, *a, **kw)
        if "r" in mode and "+" not in mode:
            return fh
        disk = self
        raw = fh.buffer.raw

        class FullRaw(io.FileIO):
            def write(self, b):
                if len(b) > disk.room:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                disk.room -= len(b)
                return super().write(b)

        fh.close()
        r = FullRaw(raw.name, mode.replace("t", "").replace("b", "").replace("+", "") or "r")
        if "a" in mode:
            r.seek(0, os.SEEK_END)
        return io.TextIOWrapper(io.BufferedWriter(r), encoding=kw.get("encoding", "utf-8"))


def _one_line_error(stderr: str) -> str:
    lines = [l for l in stderr.splitlines() if l.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in stderr and "Errno" not in stderr, stderr
    return lines[0]


def test_a_full_disk_ends_generate_with_one_line_and_resume_completes_the_files(tmp_path, monkeypatch):
    ref = tmp_path / "ref.jsonl"
    res = CliRunner().invoke(app, ["generate", str(ROWS), "-o", str(ref), *ARGS])
    assert res.exit_code == 0, res.output
    out = tmp_path / "out.jsonl"
    disk = _SmallDisk(room=ref.stat().st_size // 2)
    monkeypatch.setattr(codemorph.rows.dataset, "open", disk.open, raising=False)
    res = CliRunner().invoke(app, ["generate", str(ROWS), "-o", str(out), *ARGS])
    assert res.exit_code == 2
    assert _one_line_error(res.stderr) == (
        f"error: cannot write {out}: No space left on device; the rows written so far are kept; free space and "
        "run the same command with --resume")
    assert 0 < out.stat().st_size < ref.stat().st_size
    monkeypatch.undo()  # space freed
    res = CliRunner().invoke(app, ["generate", str(ROWS), "-o", str(out), *ARGS, "--resume"])
    assert res.exit_code == 0, res.stderr
    assert "resumed: the first" in res.stdout
    assert out.read_bytes() == ref.read_bytes()
    assert (tmp_path / "out.rejects.jsonl").read_bytes() == (tmp_path / "ref.rejects.jsonl").read_bytes()


def test_a_full_tmpfs_ends_generate_with_one_line(tmp_path):
    # the real thing, where the tests may mount a file system (root on Linux)
    small = tmp_path / "small"
    small.mkdir()
    if not shutil.which("mount") or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=40k", "tmpfs", str(small)],
                                                   capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        out = small / "out.jsonl"
        res = subprocess.run([sys.executable, "-m", "codemorph.cli", "generate", str(ROWS), "-o", str(out), *ARGS],
                             capture_output=True, text=True, timeout=600)
        assert res.returncode == 2, res.stderr
        assert _one_line_error(res.stderr) == (
            f"error: cannot write {out}: No space left on device; the rows written so far are kept; free space "
            "and run the same command with --resume")
        subprocess.run(["mount", "-o", "remount,size=2m", str(small)], check=True)
        res = subprocess.run([sys.executable, "-m", "codemorph.cli", "generate", str(ROWS), "-o", str(out), *ARGS,
                              "--resume"], capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stderr
        assert "resumed: the first" in res.stdout
    finally:
        subprocess.run(["umount", str(small)], capture_output=True)


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_an_output_that_is_not_a_regular_file_is_refused_before_the_run(tmp_path, kind):
    if kind == "device":
        out = Path("/dev/full")
        if not out.exists():
            pytest.skip("no /dev/full here")
        before = sorted(os.listdir("/dev"))
    else:
        out = tmp_path / "out.fifo"
        os.mkfifo(out)
        before = sorted(os.listdir(tmp_path))
    res = CliRunner().invoke(app, ["generate", str(ROWS), "-o", str(out), *ARGS])
    assert res.exit_code == 2
    assert _one_line_error(res.stderr).startswith(f"error: {out}: is not a regular file (a device, a fifo or a socket)")
    assert sorted(os.listdir(out.parent)) == before  # no rejects, progress or lock file next to it
