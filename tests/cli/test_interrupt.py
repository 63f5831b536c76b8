"""An interrupted run (Ctrl-C or SIGTERM) says so and how to resume, and exits 130; it
does not wait for the rows in progress, leaves no worker or sandbox process behind, and the
same command with --resume then writes the same bytes as an uninterrupted run."""

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

from codemorph.cli.generate import interrupted_message
from codemorph.rows.dataset import Checkpoint, progress_path, rejects_path

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
    assert f"error: generate interrupted; the rows written so far are in {out} (input rows done: " in \
        " ".join(stderr.split())
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


# a program that never returns: with --timeout 120, each of its executions takes two minutes,
# so an uninterrupted run of these rows takes many minutes
LOOP = "def f(x):\n    while True:\n        x += 1\n"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_interrupting_slow_rows_ends_workers_and_sandboxes_without_waiting_for_the_rows(tmp_path, sig) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": f"r{k}", "code": LOOP, "input": "1", "output": "1"}) + "\n"
                           for k in range(4)))
    out = tmp_path / "out.jsonl"
    cmd = [str(BIN), "generate", str(src), "-o", str(out), "-t", "invert-if", "--workers", "2", "--timeout", "120"]
    # a session of its own: SIGINT goes to its whole process group, as a terminal's Ctrl-C does
    p = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        # the two workers, their sandbox zygotes and the zygotes' children running the loop
        deadline = time.monotonic() + 120
        procs: set[int] = set()
        while time.monotonic() < deadline:
            procs |= descendants(p.pid)
            if len(procs) >= 7:
                break
            time.sleep(0.1)
        assert len(procs) >= 7, procs
        assert p.poll() is None
        if sig == signal.SIGINT:
            os.killpg(p.pid, sig)
        else:
            p.send_signal(sig)
        # far sooner than the rows in progress could end (each execution takes 120 s)
        stdout, stderr = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130
    assert ("error: generate interrupted; no row was written yet; run the same command again to start over"
            in " ".join(stderr.split()))
    assert "Traceback" not in stderr
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(alive(q) for q in procs):
        time.sleep(0.1)
    assert [q for q in procs if alive(q)] == []
    assert out.read_text() == ""


def test_resuming_a_run_interrupted_in_worker_processes_writes_what_an_uninterrupted_run_writes(tmp_path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": f"r{k}", "code": SLOW, "input": str(200_000 + k),
                                       "output": str(sum(range(200_000 + k)))}) + "\n" for k in range(ROWS)))
    whole = tmp_path / "whole.jsonl"
    args = ["-t", "rename-locals", "--workers", "2"]
    done = subprocess.run([str(BIN), "generate", str(src), "-o", str(whole), *args], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out.jsonl"
    cmd = [str(BIN), "generate", str(src), "-o", str(out), *args]
    p = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (out.exists() and out.read_text().count("\n") >= 2) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert p.poll() is None, "the run ended before it could be interrupted"
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 130
    assert out.read_bytes() != whole.read_bytes()
    resumed = subprocess.run(cmd + ["--resume"], cwd=tmp_path, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert out.read_bytes() == whole.read_bytes()
    assert rejects_path(out).read_bytes() == rejects_path(whole).read_bytes()


def test_interrupted_message_says_no_row_was_written_before_the_first_row_group(tmp_path) -> None:
    out = tmp_path / "out.jsonl"
    assert interrupted_message(out) == "no row was written yet; run the same command again to start over"
    Checkpoint(progress_path(out), {"seed": 0}).start()  # the header only: nothing done
    assert interrupted_message(out) == "no row was written yet; run the same command again to start over"


def test_interrupted_message_names_the_output_and_resume_once_a_row_is_done(tmp_path) -> None:
    from codemorph.rows.dataset import RowWriter

    out = tmp_path / "out.jsonl"
    cp = Checkpoint(progress_path(out), {"seed": 0})
    cp.start()
    with RowWriter(out) as w:
        w.write({"id": "r0"})
        cp.mark(3, [w])
    cp.close()
    assert interrupted_message(out) == (f"the rows written so far are in {out} (input rows done: 3); run the same "
                                        "command with --resume to continue")


def test_interrupted_message_names_the_rejects_when_every_finished_row_was_rejected(tmp_path) -> None:
    from codemorph.rows.dataset import RowWriter

    out = tmp_path / "out.jsonl"
    cp = Checkpoint(progress_path(out), {"seed": 0})
    cp.start()
    with RowWriter(out) as w, RowWriter(rejects_path(out)) as rej:
        rej.write({"id": "r0", "stage": "execute", "reason": "..."})
        cp.mark(2, [w, rej])
    cp.close()
    assert out.read_text() == ""
    assert interrupted_message(out) == (
        f"every input row done so far was rejected, the reasons are in {rejects_path(out)} (input rows done: 2); "
        "run the same command with --resume to continue")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("first,second", [(signal.SIGTERM, signal.SIGTERM), (signal.SIGINT, signal.SIGTERM),
                                          (signal.SIGTERM, signal.SIGINT)])
def test_a_second_signal_during_the_clean_up_still_exits_130(tmp_path, first, second) -> None:
    # a second SIGTERM 0.05-0.2 s after the first reached the process while the interpreter shut
    # down, whose Python handlers are gone by then: it died of SIGTERM (143) before the fix
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": f"r{k}", "code": LOOP, "input": "1", "output": "1"}) + "\n"
                           for k in range(4)))
    out = tmp_path / "out.jsonl"
    cmd = [str(BIN), "generate", str(src), "-o", str(out), "-t", "invert-if", "--workers", "2", "--timeout", "120"]
    p = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while len(descendants(p.pid)) < 5 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert p.poll() is None
        p.send_signal(first)
        for _ in range(4):  # through the clean-up and the shutdown
            time.sleep(0.05)
            if p.poll() is None:
                p.send_signal(second)
        stdout, stderr = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130
    assert "error: generate interrupted; no row was written yet" in " ".join(stderr.split())
    assert "Traceback" not in stderr


#: runs the console script's entry point with a signal sent to itself while the command
#: line's modules load (when typer is imported)
WHILE_LOADING = """
import os, signal, sys
class Finder:
    def find_spec(self, name, path=None, target=None):
        if name == "typer":
            os.kill(os.getpid(), signal.{sig})
        return None
sys.meta_path.insert(0, Finder())
sys.argv = ["codemorph", "list"]
from codemorph.cli import main
main()
"""


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_an_interruption_while_the_command_line_loads_exits_130_with_one_line(sig) -> None:
    done = subprocess.run([sys.executable, "-c", WHILE_LOADING.format(sig=sig)], capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stderr, done.stdout) == (130, "error: interrupted while starting; nothing was run\n", "")


def test_interrupted_perturb_says_where_its_rows_are_or_that_none_was_written(tmp_path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": f"r{k}", "code": SLOW, "input": str(200_000 + k),
                                       "output": str(sum(range(200_000 + k)))}) + "\n" for k in range(40)))
    out = tmp_path / "p.jsonl"
    cmd = [str(BIN), "perturb", str(src), "-o", str(out), "--workers", "1"]
    p = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # the search runs in the sandbox's children (40 rows of a 200,000-iteration loop take
        # over a minute)
        deadline = time.monotonic() + 120
        while len(descendants(p.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1)
        assert p.poll() is None, "the run ended before it could be interrupted"
        p.send_signal(signal.SIGTERM)
        stdout, stderr = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130
    said = " ".join(stderr.split())
    if out.exists() and out.stat().st_size:
        assert (f"error: perturb interrupted; the rows written so far are in {out}, for the input rows finished; "
                "perturb has no --resume: run the same command again to search every row from the start" in said)
    else:
        assert "error: perturb interrupted; no row was written yet; run the same command again to start over" in said
    assert "Traceback" not in stderr


def test_interrupted_perturb_before_any_row_says_nothing_was_written(tmp_path) -> None:
    from codemorph.cli.perturb import _interrupted_message

    out = tmp_path / "p.jsonl"
    assert _interrupted_message(out) == "no row was written yet; run the same command again to start over"
    out.write_text("")
    assert _interrupted_message(out) == "no row was written yet; run the same command again to start over"
    out.write_text('{"id": "r0:perturb:ValueError:0"}\n')
    assert _interrupted_message(out) == (f"the rows written so far are in {out}, for the input rows finished; "
                                         "perturb has no --resume: run the same command again to search every row "
                                         "from the start")
