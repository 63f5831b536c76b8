"""One writer per output: a second ``generate``/``perturb`` on an output another process
is writing stops with exit 2 and touches nothing; the lock of a ``kill -9``-ed run is free.

Deterministic: the lock is held by the test process itself or by a child that reports
once it holds it (no sleeps, no timing)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from codemorph.jobs.generate import GenerateConfig, generate
from codemorph.rows.lock import OutputBusyError, lock_path, output_lock
from codemorph.sandbox.pool import Limits
from paths import PACKAGE_DATA

CONFIG = GenerateConfig.from_transforms(("rename-locals",), extra_inputs=2, workers=1, limits=Limits(timeout=5.0))


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "codemorph.cli", *args]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    p = tmp_path / "in.jsonl"
    p.write_text("".join(PACKAGE_DATA.joinpath("default.jsonl").read_text().splitlines(keepends=True)[:3]))
    return p


def holder(out: Path) -> subprocess.Popen:
    """A child process that holds the lock of ``out`` until it is killed or its stdin closes."""
    code = ("import sys\nfrom codemorph.rows.lock import output_lock\n"
            "with output_lock(sys.argv[1]):\n    print('locked', flush=True)\n    sys.stdin.read()\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline() == "locked\n"
    return proc


def test_second_run_while_the_output_is_locked_exits_2_and_leaves_the_output_intact(tmp_path, corpus):
    out = tmp_path / "out.jsonl"
    generate(corpus, out, CONFIG)
    files = {p: p.read_bytes() for p in (out, tmp_path / "out.rejects.jsonl", tmp_path / "out.progress.jsonl")}
    assert files[out]
    common = [str(corpus), "-o", str(out), "-t", "rename-locals", "--extra-inputs", "2", "--workers", "1"]
    with output_lock(out):  # this process is "the first run", still writing
        for args in (["generate", *common], ["generate", *common, "--resume"],
                     ["perturb", str(corpus), "-o", str(out), "--workers", "1"]):
            res = subprocess.run(cli(*args), capture_output=True, text=True, timeout=120)
            assert res.returncode == 2, (args, res.stderr)
            message = " ".join(res.stderr.split())
            again = "then run again (with --resume to continue what it wrote)" if args[0] == "generate" \
                else "then run again"
            assert (f"error: {out}: another codemorph run (pid {os.getpid()}) is writing this output; wait for it "
                    f"to finish (or stop it), {again}, or choose another -o") in message
            assert {p: p.read_bytes() for p in files} == files
    assert all(json.loads(line)["id"] for line in out.read_text().splitlines())
    assert not lock_path(out).exists()  # released and removed


def test_library_generate_raises_output_busy_with_the_holders_pid(tmp_path, corpus):
    out = tmp_path / "out.jsonl"
    proc = holder(out)
    try:
        with pytest.raises(OutputBusyError) as err:
            generate(corpus, out, CONFIG)
        assert err.value.pid == proc.pid and err.value.output == out
        assert not out.exists() and not (tmp_path / "out.progress.jsonl").exists()
    finally:
        proc.stdin.close()
        proc.wait()


def test_the_lock_of_a_sigkilled_run_is_free_and_resume_proceeds(tmp_path, corpus):
    out = tmp_path / "out.jsonl"
    generate(corpus, out, CONFIG)
    reference = out.read_bytes()
    proc = holder(out)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert lock_path(out).read_text() == f"{proc.pid}\n"  # the killed run's lock file is left behind...
    again = generate(corpus, out, CONFIG, resume=True)  # ...and locks nothing
    assert again.rows_resumed == 3 and again.rows_read == 0
    assert out.read_bytes() == reference
    assert not lock_path(out).exists()


def test_the_lock_is_reentrant_in_one_process_and_named_after_the_output(tmp_path):
    out = tmp_path / "data.jsonl"
    assert lock_path(out) == tmp_path / "data.lock"
    with output_lock(out) as path:
        with output_lock(out):
            assert path.read_text() == f"{os.getpid()}\n"
        assert path.exists()  # the outer holder still has it
        res = subprocess.run([sys.executable, "-c", "import sys\nfrom codemorph.rows.lock import output_lock\n"
                              "try:\n    output_lock(sys.argv[1]).__enter__()\nexcept Exception as e:\n"
                              "    print(type(e).__name__, e.pid)\n", str(out)], capture_output=True, text=True)
        assert res.stdout == f"OutputBusyError {os.getpid()}\n"
    assert not path.exists()
    with output_lock(out):  # free again
        pass


def test_a_forked_child_does_not_hold_its_parents_lock(tmp_path):
    out = tmp_path / "out.jsonl"
    with output_lock(out):
        pid = os.fork()
        if pid == 0:  # the child: the parent's lock is not its own (it would be re-entered if it were)
            try:
                with output_lock(out):
                    os._exit(0)
            except OutputBusyError:
                os._exit(3)
            os._exit(1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 3


def test_a_symlink_to_the_output_or_its_rejects_or_checkpoint_as_output_meets_the_lock(tmp_path, corpus):
    out = tmp_path / "out.jsonl"
    (tmp_path / "link.jsonl").symlink_to(out)
    proc = holder(out)
    try:
        for other in (tmp_path / "link.jsonl", tmp_path / "x" / ".." / "out.jsonl", tmp_path / "out.rejects.jsonl",
                      tmp_path / "out.progress.jsonl"):
            (tmp_path / "x").mkdir(exist_ok=True)
            with pytest.raises(OutputBusyError) as err:
                with output_lock(other):
                    pass
            assert err.value.pid == proc.pid and err.value.output == other
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    # once the holder ended, the same paths lock at once
    with output_lock(tmp_path / "link.jsonl"), output_lock(tmp_path / "out.rejects.jsonl"):
        pass


def test_an_output_whose_lock_file_cannot_be_created_is_an_input_error_not_a_traceback(tmp_path, corpus):
    # what a read-only folder does for a user who is not root: the lock file cannot be made
    # (here a folder stands where the lock file would go, which fails for root too)
    (tmp_path / "o.lock").mkdir()
    res = subprocess.run(cli("generate", str(corpus), "-o", str(tmp_path / "o.jsonl"), "--workers", "1"),
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert (f"{tmp_path / 'o.jsonl'}: cannot create the lock file {tmp_path / 'o.lock'} next to the output"
            in " ".join(res.stderr.split()))
    assert not (tmp_path / "o.jsonl").exists()


def test_a_hard_link_to_the_output_or_a_lock_file_as_output_meets_the_lock(tmp_path, corpus):
    out = tmp_path / "out.jsonl"
    out.write_text("")  # an output being resumed, or rewritten
    proc = holder(out)
    try:
        os.link(out, tmp_path / "hard.jsonl")
        for other in (tmp_path / "hard.jsonl", tmp_path / "out.lock", tmp_path / "out.rejects.lock"):
            with pytest.raises(OutputBusyError) as err:
                with output_lock(other):
                    pass
            assert err.value.output == other
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert not (tmp_path / "out.lock").exists() and out.exists()


def test_a_full_disk_leaves_no_lock_file_and_says_to_free_space(tmp_path, monkeypatch):
    import errno

    import codemorph.rows.lock as lock_module
    from codemorph.errors import InputError

    def no_space(fd, data, offset):  # the lock file's pid cannot be written: the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(lock_module.os, "pwrite", no_space)
    out = tmp_path / "out.jsonl"
    with pytest.raises(InputError) as caught:
        with output_lock(out, resumable=True):
            pass
    assert str(caught.value) == (f"{out}: cannot write the lock file {lock_path(out)} next to the output (No space "
                                 "left on device); free space and run the same command again")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
