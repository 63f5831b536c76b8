"""The ordered row map of codemorph.executors: input order whatever order rows finish in,
one state per worker, Reject pass-through, and the same bytes from a local run and a Dask
run of ``evaluate`` and ``perturb`` (on a 2-worker LocalCluster).

Programs run only in codemorph's sandbox (through codemorph.evaluate and codemorph.perturb).
"""

from __future__ import annotations

import json
import os
import random
import threading
import time

import pytest

from codemorph.rows.dataset import Reject, SourceRow, read_rows
from codemorph.jobs.executors import LocalExecutor, close_states, map_rows
from codemorph.jobs.perturb import perturb_ordered
from paths import CRUXEVAL, SCORING_FIXTURES, shared

DATA = CRUXEVAL
FIX = SCORING_FIXTURES / "evaluate"


# -- helpers run by workers (module level: picklable by reference) ------------------------------
class Counter:
    """A per-worker state: which worker it lives in, how many rows it saw, whether closed."""

    def __init__(self) -> None:
        self.where = (os.getpid(), threading.get_ident())
        self.rows = 0
        self.closed = False

    def close(self) -> None:
        self.closed = True


def square_slowly(state: Counter, x: int) -> tuple[int, tuple[int, int], int]:
    """``x * x`` after a pseudo-random pause, so rows finish out of order."""
    time.sleep(random.Random(x).random() * 0.02)
    state.rows += 1
    return x * x, state.where, state.rows


def fail_on_three(state, x: int) -> int:
    if x == 3:
        raise KeyError("row three")
    return x


# -- local backends -------------------------------------------------------------------------------
@pytest.mark.parametrize("workers,local", [(1, "processes"), (3, "threads"), (2, "processes")])
def test_results_come_back_in_input_order(workers, local):
    rows = list(range(40))
    out = list(map_rows(square_slowly, rows, LocalExecutor(), setup=Counter, workers=workers, local=local))
    assert [x for x, _ in out] == rows
    assert [r[0] for _, r in out] == [x * x for x in rows]
    # one state per worker: each worker's row counter counts 1, 2, 3... without gaps
    per_worker: dict = {}
    for _, (_, where, n) in out:
        per_worker.setdefault(where, []).append(n)
    assert 1 <= len(per_worker) <= workers
    assert sorted(n for ns in per_worker.values() for n in ns) == sorted(
        n for ns in per_worker.values() for n in range(1, len(ns) + 1))


def test_states_are_closed_and_rejects_pass_through():
    made: list[Counter] = []

    def setup() -> Counter:
        made.append(Counter())
        return made[-1]

    reject = Reject(None, 2, "read", "bad line", "{x")
    rows = [1, reject, 2, 3]
    out = list(map_rows(square_slowly, rows, setup=setup, workers=2, local="threads"))
    assert [x for x, _ in out] == rows
    assert out[1][1] is None and [r[0] for x, r in out if x is not reject] == [1, 4, 9]
    assert made and all(s.closed for s in made)
    assert close_states() == 0  # nothing left behind


def test_a_worker_error_is_raised_at_its_row():
    it = map_rows(fail_on_three, range(6), workers=2, local="threads")
    assert [next(it)[1] for _ in range(3)] == [0, 1, 2]
    with pytest.raises(KeyError, match="row three"):
        next(it)


def test_rows_are_consumed_lazily():
    pulled = []

    def source():
        for i in range(10_000):
            pulled.append(i)
            yield i

    it = map_rows(square_slowly, source(), setup=Counter, workers=2, local="threads", window=4)
    first = [next(it) for _ in range(3)]
    assert [x for x, _ in first] == [0, 1, 2]
    assert len(pulled) <= 3 + 4 + 1  # the window ahead of the row yielded, not the whole corpus
    it.close()


def test_bad_arguments():
    with pytest.raises(ValueError, match="workers must be >= 1"):
        map_rows(square_slowly, [1], workers=0)
    with pytest.raises(ValueError, match="'processes' or 'threads'"):
        map_rows(square_slowly, [1], workers=2, local="fibers")
    with pytest.raises(TypeError, match="expected a LocalExecutor or DaskExecutor"):
        map_rows(square_slowly, [1], executor="dask")


# -- Dask ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  memory_limit=0) as cluster, distributed.Client(cluster) as c:
        yield c


def test_dask_map_matches_local(client):
    from codemorph.jobs.executors import DaskExecutor

    rows = list(range(30)) + [Reject("r", 31, "read", "bad", None)]
    local = [(x, None if r is None else r[0])
             for x, r in map_rows(square_slowly, rows, setup=Counter, workers=2, local="threads")]
    dask = [(x, None if r is None else r[0])
            for x, r in map_rows(square_slowly, rows, DaskExecutor(client, rows_per_task=4), setup=Counter)]
    assert dask == local
    # every state built on the workers was closed when the map ended
    assert sum(client.run(close_states).values()) == 0


def no_state(state, x: int) -> tuple[bool, int]:
    return state is None, -x


def test_dask_map_without_setup_and_executor_names(client):
    from codemorph.jobs.executors import DaskExecutor, make_executor

    assert list(map_rows(no_state, [1, 2, 3], DaskExecutor(client, rows_per_task=2))) == \
        [(1, (True, -1)), (2, (True, -2)), (3, (True, -3))]
    ex = make_executor("dask", client.scheduler.address, rows_per_task=5)
    assert isinstance(ex, DaskExecutor) and ex.rows_per_task == 5
    assert [r for _, r in map_rows(no_state, range(7), ex)] == [(True, -x) for x in range(7)]
    with pytest.raises(ValueError, match="must be >= 1"):
        make_executor("dask", "tcp://localhost:1", rows_per_task=0)


def cruxeval_rows(n: int) -> list[dict]:
    shared("cruxeval", "cruxeval.jsonl")
    return [json.loads(x) for x in DATA.read_text().splitlines()[:n]]


def test_evaluate_local_and_dask_write_the_same_scores(client, tmp_path):
    from codemorph.scoring.evaluate import evaluate_many, write_scores, write_summary
    from codemorph.jobs.executors import DaskExecutor
    from codemorph.scoring.predictions import PredictionSet, load_predictions, load_rows

    rows = cruxeval_rows(24)
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    # right on even rows, a wrong literal, a non-expression and the call itself on odd rows
    # (timeouts generous for a loaded machine: a timed-out check would differ between runs)
    preds = {r["id"]: [r["output"], "0", "1 +", "f(" + r["input"] + ")"] if i % 2 else [r["output"]]
             for i, r in enumerate(rows)}
    sets = [PredictionSet("toy", preds, "memory", "jsonl")]
    loaded = load_rows(data)
    local = evaluate_many(loaded, sets, workers=2, timeout=10.0)
    dask = evaluate_many(loaded, sets, timeout=10.0, executor=DaskExecutor(client, rows_per_task=3))
    for name, res in (("local", local), ("dask", dask)):
        write_scores(res, tmp_path / f"{name}.scores.jsonl")
        write_summary(res, tmp_path / f"{name}.summary.json")
    assert (tmp_path / "dask.scores.jsonl").read_bytes() == (tmp_path / "local.scores.jsonl").read_bytes()
    assert (tmp_path / "dask.summary.json").read_bytes() == (tmp_path / "local.summary.json").read_bytes()
    [res] = local
    assert res.executions == 12 + 12 * 3  # the call itself is refused without running
    assert [s.correct for s in res.rows[:2]] == [[True], [True, False, False, False]]
    assert res.rows[1].status[2:] == ["fail:SyntaxError", "skip:call-in-output"]

    # input mode and exception rows (the harness fixtures), several generations per row
    hrows = load_rows(FIX / "harness_rows.jsonl")
    for mode in ("output", "input"):
        ps = load_predictions(FIX / f"harness_{mode}.json")
        a = evaluate_many(hrows, ps, mode=mode, workers=1, timeout=10.0)
        b = evaluate_many(hrows, ps, mode=mode, timeout=10.0, executor=DaskExecutor(client, rows_per_task=1))
        assert [s.to_json() for s in b[0].rows] == [s.to_json() for s in a[0].rows]
        assert b[0].summary() == a[0].summary()


def test_evaluate_refuses_a_sandbox_with_dask(client):
    from codemorph.scoring.evaluate import evaluate_dataset
    from codemorph.jobs.executors import DaskExecutor
    from codemorph.scoring.predictions import EvalRow, PredictionSet
    from codemorph.sandbox.pool import Sandbox

    with Sandbox() as sb, pytest.raises(ValueError, match="not both"):
        evaluate_dataset([EvalRow("a", "def f():\n    return 1", "", "1")], PredictionSet("m", {"a": ["1"]}),
                         sandbox=sb, executor=DaskExecutor(client))


def test_perturb_local_and_dask_give_the_same_rows(client):
    from codemorph.jobs.executors import DaskExecutor
    from codemorph.jobs.perturb import PerturbConfig
    from codemorph.perturb.search import Budget

    rows = cruxeval_rows(6)
    items: list = [SourceRow(r["id"], r["code"], r["input"], r["output"], "f", i + 1) for i, r in enumerate(rows)]
    items.insert(2, Reject(None, 3, "read", "not valid JSON", "{x"))
    config = PerturbConfig(exceptions=("IndexError", "TypeError"), output_changes=1,
                           budget=Budget(executions=60, seconds=60, shrink=20), seed=3, workers=2)

    def run(executor):
        out = []
        for item, res in perturb_ordered(config, items, executor):
            out.append((getattr(item, "id", None), json.dumps(res.rows, sort_keys=True),
                        [r.to_json() for r in res.rejects], res.executions, res.searched))
        return out

    local = run(None)
    dask = run(DaskExecutor(client, rows_per_task=2))
    assert dask == local
    assert [o[0] for o in local] == [rows[0]["id"], rows[1]["id"], None] + [r["id"] for r in rows[2:]]
    assert local[2][2][0]["reason"] == "not valid JSON"
    assert sum(o[3] for o in local) > 0 and any(json.loads(o[1]) for o in local)


def test_generate_reads_parquet_on_dask(client, tmp_path):
    """generate on a Parquet shard pair through Dask writes what a local run on the same
    rows as JSON Lines writes."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from codemorph.jobs.executors import DaskExecutor
    from codemorph.jobs.generate import GenerateConfig, generate

    rows = cruxeval_rows(6)
    (tmp_path / "jsonl").mkdir()
    (tmp_path / "pq").mkdir()
    for k, part in enumerate((rows[:4], rows[4:])):
        (tmp_path / "jsonl" / f"part-{k}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in part))
        pq.write_table(pa.Table.from_pylist(part), tmp_path / "pq" / f"part-{k}.parquet")
    config = GenerateConfig.from_transforms(("rename-locals",), extra_inputs=4)
    generate(tmp_path / "jsonl", tmp_path / "local.jsonl", config)
    generate(tmp_path / "pq", tmp_path / "dask.jsonl", config, executor=DaskExecutor(client, rows_per_task=2))
    local = (tmp_path / "local.jsonl").read_bytes()
    assert (tmp_path / "dask.jsonl").read_bytes() == local
    assert len(local.splitlines()) >= 6  # every original, plus the variants that applied
    assert len(list(read_rows(tmp_path / "pq"))) == 6
