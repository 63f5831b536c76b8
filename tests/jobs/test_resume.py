"""``generate --resume`` after ``kill -9``: no duplicate, no missing row, same files as an
uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codemorph.rows.dataset import Checkpoint, RowWriter, progress_path
from codemorph.errors import InputError
from codemorph.jobs.generate import GenerateConfig, generate
from codemorph.sandbox.pool import Limits
from paths import CRUXEVAL, shared

DATA = CRUXEVAL
TRANSFORMS = ("rename-locals",)


def corpus(tmp_path: Path, n: int = 10) -> Path:
    shared("cruxeval", "cruxeval.jsonl")
    rows = [json.loads(x) for x in DATA.read_text().splitlines()[:n]]
    rows[3]["output"] = "'not what it returns'"  # one row goes to the rejects file
    p = tmp_path / "in.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows) + "{broken json\n")
    return p


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "codemorph.cli", *args]


def progress_rows(path: Path) -> int:
    if not path.exists():
        return 0
    lines = [x for x in path.read_text().split("\n")[1:-1] if x]
    try:
        return json.loads(lines[-1])["rows"] if lines else 0
    except ValueError:
        return 0


CONFIG = GenerateConfig.from_transforms(TRANSFORMS, extra_inputs=2, limits=Limits(timeout=5.0))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The corpus and the output of an uninterrupted local run over it."""
    tmp = tmp_path_factory.mktemp("reference")
    inp = corpus(tmp)
    ref = tmp / "out.jsonl"
    generate(inp, ref, CONFIG)
    return inp, ref


def test_kill_9_then_resume_equals_uninterrupted_run(tmp_path, reference):
    inp, ref = reference
    config = CONFIG

    out = tmp_path / "run" / "out.jsonl"
    out.parent.mkdir()
    args = [str(inp), "-o", str(out), "--workers", "1", "--extra-inputs", "2"] + \
        [a for t in TRANSFORMS for a in ("-t", t)]
    proc = subprocess.Popen(cli("generate", *args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while progress_rows(progress_path(out)) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert proc.poll() is None, "the run finished before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)  # the run, its pool workers and sandbox workers
    finally:
        proc.wait()
    done = progress_rows(progress_path(out))
    assert 3 <= done < 11

    res = subprocess.run(cli("generate", *args, "--resume"), capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert f"resumed: the first {done} input rows were already done" in res.stdout
    assert out.read_bytes() == ref.read_bytes()
    assert out.with_name("out.rejects.jsonl").read_bytes() == ref.with_name("out.rejects.jsonl").read_bytes()
    ids = [json.loads(x)["id"] for x in out.read_text().splitlines()]
    assert len(ids) == len(set(ids))
    # resuming a finished run changes nothing
    again = generate(inp, out, config, resume=True)
    assert again.rows_resumed == 11 and again.rows_read == 0
    assert out.read_bytes() == ref.read_bytes()


def test_restore_drops_torn_lines_and_partial_groups(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    ck = Checkpoint(tmp_path / "p.jsonl", {"x": 1})
    ck.start()
    with RowWriter(a) as wa, RowWriter(b) as wb:
        wa.write({"row": 1})
        ck.mark(1, [wa, wb])
        wa.write({"row": 2})
        wb.write({"reject": 2})
        ck.mark(2, [wa, wb])
        wa.write({"row": 3})  # group 3 is half written: no checkpoint line
    ck.close()
    with open(a, "a") as fh:
        fh.write('{"row": 4, "tor')  # a torn line
    with open(tmp_path / "p.jsonl", "a") as fh:
        fh.write('{"rows": 3, "si')  # a torn checkpoint line
    assert Checkpoint(tmp_path / "p.jsonl", {"x": 1}).restore([a, b]) == 2
    assert a.read_text() == '{"row": 1}\n{"row": 2}\n'
    assert b.read_text() == '{"reject": 2}\n'


def test_restore_refuses_other_settings_and_changed_files(tmp_path):
    a = tmp_path / "a.jsonl"
    ck = Checkpoint(tmp_path / "p.jsonl", {"seed": 1})
    ck.start()
    with RowWriter(a) as wa:
        wa.write({"row": 1})
        ck.mark(1, [wa])
    ck.close()
    with pytest.raises(InputError, match="other settings"):
        Checkpoint(tmp_path / "p.jsonl", {"seed": 2}).restore([a])
    a.write_text("")
    with pytest.raises(InputError, match="changed since"):
        Checkpoint(tmp_path / "p.jsonl", {"seed": 1}).restore([a])


def test_resume_without_checkpoint_starts_afresh(tmp_path):
    a = tmp_path / "a.jsonl"
    a.write_text('{"stale": true}\n')
    assert Checkpoint(tmp_path / "p.jsonl", {}).restore([a]) == 0
    assert a.read_text() == ""


def test_dask_executor_writes_the_same_files(tmp_path, reference):
    distributed = pytest.importorskip("distributed")
    from codemorph.jobs.executors import DaskExecutor

    inp, ref = reference
    out = tmp_path / "out.jsonl"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as client:
        summary = generate(inp, out, CONFIG, executor=DaskExecutor(client, rows_per_task=3))
    assert summary.rows_read == 11
    assert out.read_bytes() == ref.read_bytes()
    assert out.with_name("out.rejects.jsonl").read_bytes() == ref.with_name("out.rejects.jsonl").read_bytes()


def test_executor_names():
    from codemorph.jobs.executors import LocalExecutor, make_executor

    assert isinstance(make_executor("local"), LocalExecutor)
    with pytest.raises(ValueError, match="needs --scheduler"):
        make_executor("dask")
    with pytest.raises(ValueError, match="unknown executor"):
        make_executor("spark")
