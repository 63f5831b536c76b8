"""Rows and results crossing to and from worker processes (and Dask workers) one by one: a
row or a result that cannot be pickled costs that row only, as a ``RowTransportError``
passed to ``on_error`` (in ``generate`` and ``perturb``: a reject of stage ``worker``),
never the run; one nested too deeply for the default recursion limit (a JSON value 900 lists
deep, which the reader accepts) crosses as it would with one worker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codemorph.cli.main import app
from codemorph.jobs.executors import PICKLE_RECURSION_LIMIT, RowTransportError, map_rows


def nested(depth: int, leaf: object = 0) -> list:
    """``[[...[leaf]...]]``, ``depth`` lists deep (built without recursion)."""
    value: object = leaf
    for _ in range(depth):
        value = [value]
    return value  # type: ignore[return-value]


def depth_of(value: object) -> int:
    depth = 0
    while isinstance(value, list):
        value, depth = (value[0] if value else None), depth + 1
    return depth


def echo_depth(state, x: object) -> tuple[int, object]:
    """The row's nesting depth, and the row itself (so that the result is as deep)."""
    return depth_of(x), x


def unpicklable_for_zero(state, x: int) -> object:
    return (lambda: x) if x == 0 else x


def why(row: object, exc: Exception) -> tuple[str, str]:
    return type(exc).__name__, str(exc)


SENT = ("this row could not be sent to {}: pickling it failed (RecursionError: maximum recursion depth exceeded "
        "while pickling an object; e.g. a value nested too deeply in one of its columns); the run went on")


@pytest.mark.parametrize("local", ["processes", "threads"])
def test_a_row_nested_900_lists_deep_crosses_to_a_worker_and_back(local):
    out = list(map_rows(echo_depth, [1, nested(900), 3], workers=2, local=local, on_error=why))
    assert [(d, depth_of(r)) for _, (d, r) in out] == [(0, 0), (900, 900), (0, 0)]


def test_a_row_too_deep_to_pickle_costs_that_row_only():
    too_deep = nested(2 * PICKLE_RECURSION_LIMIT)
    out = [r for _, r in map_rows(echo_depth, [1, too_deep, 3], workers=2, on_error=why)]
    assert out == [(0, 1), ("RowTransportError", SENT.format("a worker process")), (0, 3)]


def test_a_result_that_cannot_be_pickled_costs_that_row_only():
    out = [r for _, r in map_rows(unpicklable_for_zero, [1, 0, 3], workers=2, on_error=why)]
    assert out == [1, ("RowTransportError", "the result of this row could not be sent back from a worker process: "
                                            "pickling it failed (AttributeError: Can't pickle local object "
                                            "'unpicklable_for_zero.<locals>.<lambda>'); the run went on"), 3]


def test_without_on_error_a_row_that_cannot_cross_raises_at_its_turn():
    it = map_rows(echo_depth, [1, nested(2 * PICKLE_RECURSION_LIMIT)], workers=2)
    assert next(it)[1] == (0, 1)
    with pytest.raises(RowTransportError, match="this row could not be sent to a worker process"):
        next(it)
    it.close()


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                  memory_limit=0) as cluster, distributed.Client(cluster) as c:
        yield c


def test_on_dask_a_deep_row_crosses_and_one_too_deep_costs_that_row_only(client):
    from codemorph.jobs.executors import DaskExecutor

    rows = [1, nested(900), nested(2 * PICKLE_RECURSION_LIMIT), 3]
    out = [r for _, r in map_rows(echo_depth, rows, DaskExecutor(client, rows_per_task=2), on_error=why)]
    assert [(d, depth_of(r)) for d, r in (out[0], out[1], out[3])] == [(0, 0), (900, 900), (0, 0)]
    assert out[2] == ("RowTransportError", SENT.format("a Dask worker"))


def _deep_rows(tmp_path: Path) -> Path:
    code = "def f(x):\n    return x\n"
    src = tmp_path / "d3.jsonl"
    src.write_text(json.dumps({"id": "d", "code": code, "input": "1", "output": "1",
                               "x": json.loads("[" * 900 + "]" * 900)}) + "\n"
                   + json.dumps({"id": "ok", "code": code, "input": "1", "output": "1"}) + "\n", encoding="utf-8")
    return src


@pytest.mark.parametrize("command", [["generate", "-t", "rename-locals"], ["perturb"]])
def test_a_row_with_a_deeply_nested_extra_column_is_written_as_with_one_worker(tmp_path, command):
    src = _deep_rows(tmp_path)
    written = {}
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}.jsonl"
        res = CliRunner().invoke(app, [command[0], str(src), "-o", str(out), *command[1:], "--workers", workers])
        assert res.exit_code == 0, res.output
        written[workers] = out.read_bytes()
    assert written["2"] == written["1"]
    rows = [json.loads(line) for line in written["2"].decode().splitlines()]
    expected = (["d", "d:rename-locals", "ok", "ok:rename-locals"] if command[0] == "generate"
                else ["d:perturb:output-change:0", "ok:perturb:output-change:0"])
    assert [r["id"] for r in rows] == expected
    assert [depth_of(r.get("x")) for r in rows] == [900] * (len(expected) // 2) + [0] * (len(expected) // 2)
    assert not (tmp_path / "out2.rejects.jsonl").exists() or not (tmp_path / "out2.rejects.jsonl").read_text()


class Unreadable:
    """Pickles, but cannot be unpickled (as an object whose class a worker cannot import)."""

    def __reduce__(self):
        return (_refuse, ())


def _refuse():
    raise ValueError("no such class here")


def test_a_row_a_worker_cannot_unpickle_costs_that_row_only():
    out = [r for _, r in map_rows(echo_depth, [1, Unreadable(), 3], workers=2, on_error=why)]
    assert out == [(0, 1), ("RowTransportError", "this row could not be received by a worker process: unpickling "
                                                 "it failed (ValueError: no such class here); the run went on"),
                   (0, 3)]
