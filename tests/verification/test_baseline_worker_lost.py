"""A baseline whose second run of the seed input is lost with its sandbox worker (the zygote
killed from outside twice: the batch's first worker, then the new one running the batch
again) names the lost worker, not the program: the row is not "nondeterministic".

The kills are timed by the host's own messages, not by the clock: each worker is killed
(SIGKILL, as ``kill -9`` from outside) right after the host received its result of the
batch's first request, while the second request (the seed's second run, a loop of about a
second) runs."""

from __future__ import annotations

import os
import signal

from codemorph.engine import Program
from codemorph.sandbox import pool
from codemorph.sandbox.pool import Limits, Outcome, Sandbox
from codemorph.verification.differential import _same_run, make_baseline

SLOW = "def f(x):\n    for _ in range(3_000_000):\n        pass\n    return x + 1\n"


def _kill_after_first_result(monkeypatch, kills: int) -> list[int]:
    """Make the next ``kills`` workers die (SIGKILL) right after sending their first
    result message of a batch; returns the list the killed pids are appended to."""
    killed: list[int] = []
    recv = pool._Worker.recv

    def recv_then_kill(self, timeout):
        msg = recv(self, timeout)
        if len(killed) < kills and isinstance(msg, dict) and msg.get("t") == "result" and msg.get("i") == 0:
            killed.append(self.proc.pid)
            os.kill(self.proc.pid, signal.SIGKILL)
        return msg

    monkeypatch.setattr(pool._Worker, "recv", recv_then_kill)
    return killed


def test_a_seed_run_lost_with_two_killed_workers_is_not_called_nondeterministic(monkeypatch):
    with Sandbox(Limits(timeout=5.0)) as box:
        killed = _kill_after_first_result(monkeypatch, kills=2)
        baseline = make_baseline(box, Program(SLOW, "f"), ["1"], extra_inputs=0, check_hash_seed=False,
                                 trace=False)
        assert len(killed) == 2 and box.retried_batches == 1
    assert [(o.status, o.value_repr) for o in baseline.outcomes] == [("returned", "2")]
    assert baseline.nondeterministic
    assert baseline.worker_lost
    assert baseline.reason.startswith(
        "the second run on input 1 was not completed: crashed (sandbox worker lost (")
    assert "nondeterministic" not in baseline.reason and "in the other" not in baseline.reason


def test_same_run_names_a_lost_worker():
    lost = Outcome(status="crashed", note="sandbox worker lost (worker process ended); request not completed")
    returned = Outcome(status="returned", value_repr="2")
    assert _same_run(returned, lost) == \
        "the second run was not completed: crashed (sandbox worker lost (worker process ended); request not completed)"
    assert _same_run(returned, Outcome(status="crashed", note="exit code 3")) == \
        "returned in one run, crashed in the other"


def test_generate_rejects_the_row_naming_the_lost_worker(monkeypatch, tmp_path):
    import json

    from codemorph.jobs.generate import GenerateConfig, generate

    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "slow", "code": SLOW, "input": "1", "output": "2"}) + "\n")
    out = tmp_path / "out.jsonl"
    killed = _kill_after_first_result(monkeypatch, kills=2)
    summary = generate(src, out, GenerateConfig.from_transforms(["rename-locals"], seed=0, workers=1))
    assert len(killed) == 2 and summary.rows_rejected == 1
    reason = json.loads((tmp_path / "out.rejects.jsonl").read_text().splitlines()[0])["reason"]
    assert reason.startswith("row 'slow' (line 1): the second run on input 1 was not completed: crashed (sandbox "
                             "worker lost (")
    assert reason.endswith("); request not completed); the program was not shown deterministic")
    assert "nondeterministic" not in reason
