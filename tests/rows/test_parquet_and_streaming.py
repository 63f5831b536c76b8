"""Parquet input (codemorph[parquet]) and streaming reads: the same rows as JSON Lines,
shards and globs, clear errors naming the file, the row and what was expected."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from codemorph import InputError
from codemorph.rows import dataset
from codemorph.rows.dataset import Reject, SourceRow, count_rows, read_rows
from paths import CRUXEVAL, shared

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

DATA = CRUXEVAL
CODE = "def f(x):\n    return x\n"


def row(i, **over):
    r = {"id": f"r{i}", "code": CODE, "input": str(i), "output": str(i)}
    r.update(over)
    return r


def write_parquet(path: Path, rows: list[dict] | None = None, table=None, **kw) -> Path:
    pq.write_table(table if table is not None else pa.Table.from_pylist(rows), path, **kw)
    return path


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_parquet_rows_equal_json_lines_rows(tmp_path, monkeypatch):
    shared("cruxeval", "cruxeval.jsonl")
    rows = [json.loads(x) for x in DATA.read_text().splitlines()[:50]]
    for i, r in enumerate(rows):  # extra fields of several JSON types survive both ways
        r["meta"] = {"n": i, "tags": ["a", "b"][: i % 3], "ok": i % 2 == 0, "score": i / 4}
    monkeypatch.setattr(dataset, "PARQUET_BATCH_ROWS", 7)  # several batches, several row groups
    pqf = write_parquet(tmp_path / "c.parquet", rows, row_group_size=16)
    js = write_jsonl(tmp_path / "c.jsonl", rows)
    from_pq, from_js = list(read_rows(pqf)), list(read_rows(js))
    assert len(from_pq) == 50 and all(isinstance(r, SourceRow) for r in from_pq)
    assert from_pq == from_js  # ids, code, input, output, entry point, row numbers, extras
    assert from_pq[9].extra == {"meta": {"n": 9, "tags": [], "ok": False, "score": 2.25}}
    assert count_rows(pqf) == count_rows(js) == 50


def test_integer_ids_dictionary_columns_and_entry_point(tmp_path):
    table = pa.table({"id": pa.array([7, 8], pa.int32()),
                      "code": pa.array([CODE, "def g(x):\n    return x\n"]).dictionary_encode(),
                      "input": pa.array(["1", "2"], pa.large_string()), "output": ["1", "2"],
                      "entry_point": [None, "g"]})
    rows = list(read_rows(write_parquet(tmp_path / "d.parquet", table=table)))
    assert [(r.id, r.entry_point, r.input, r.line) for r in rows] == [("7", "f", "1", 1), ("8", "g", "2", 2)]


def test_bad_rows_are_rejects_with_file_and_row(tmp_path):
    # (Table.from_pylist takes its columns from the first row)
    p = write_parquet(tmp_path / "bad.parquet", [row(0, entry_point=None), row(1, output=None), row(0),
                                                 row(3, entry_point="1x"), row(4, code="x" * 50)])
    rows = list(read_rows(p, max_code_chars=40))
    assert isinstance(rows[0], SourceRow)
    rej = rows[1:]
    assert all(isinstance(r, Reject) and r.stage == "read" for r in rej)
    assert rej[0].reason == f"{p}: row 2 (id 'r1'): column 'output' must be a string, got null"
    assert rej[0].line == 2 and rej[0].row["output"] is None
    assert rej[1].reason == f"{p}: row 3 (id 'r0'): duplicate id (first seen on row 1)"
    assert "column 'entry_point' must be an identifier, got '1x'" in rej[2].reason
    assert "column 'code' has 50 characters, over the limit of 40" in rej[3].reason
    json.dumps([r.to_json() for r in rej])  # the rejects file can hold them


@pytest.mark.parametrize("table,message", [
    (lambda: pa.table({"id": ["a"], "code": [CODE], "input": ["1"]}),
     "no column 'output'"),
    (lambda: pa.table({"id": ["a"], "code": [CODE], "input": [1], "output": ["1"]}),
     "column 'input' has type int64, expected a string column"),
    (lambda: pa.table({"id": [1.5], "code": [CODE], "input": ["1"], "output": ["1"]}),
     "column 'id' has type double, expected a string or integer column"),
    (lambda: pa.table({"id": ["a"], "code": [CODE], "input": ["1"], "output": ["1"], "blob": [b"\x00"]}),
     "column 'blob' has type binary, which JSON output cannot hold"),
    (lambda: pa.table({"id": ["a"], "code": [CODE], "input": ["1"], "output": ["1"], "entry_point": [3]}),
     "column 'entry_point' has type int64, expected a string column"),
])
def test_schema_errors_name_the_file_and_column(tmp_path, table, message):
    p = write_parquet(tmp_path / "s.parquet", table=table())
    with pytest.raises(InputError) as err:
        next(read_rows(p))
    assert str(err.value).startswith(f"{p}: ")
    assert message in str(err.value)
    assert "expected columns id, code, input, output" in str(err.value)


def test_a_bad_shard_fails_before_the_first_row(tmp_path):
    d = tmp_path / "corpus"
    d.mkdir()
    write_parquet(d / "part-0.parquet", [row(0), row(1)])
    write_parquet(d / "part-1.parquet", table=pa.table({"id": ["z"], "code": [CODE]}))
    with pytest.raises(InputError, match=r"part-1\.parquet: no column 'input'; no column 'output'"):
        next(read_rows(d))


def test_shards_mix_json_lines_and_parquet(tmp_path):
    d = tmp_path / "corpus"
    d.mkdir()
    write_parquet(d / "a.parquet", [row(0), row(1)])
    write_jsonl(d / "b.jsonl", [row(2), row(1)])
    write_parquet(d / "c.parquet", [row(3)])
    (d / "notes.txt").write_text("not a shard")
    rows = list(read_rows(d))
    assert [r.id for r in rows] == ["r0", "r1", "r2", "r1", "r3"]
    assert rows[3].reason.endswith(f"duplicate id (first seen on row 2 of {d / 'a.parquet'})")
    assert [r.id for r in read_rows(str(d / "*.parquet"))] == ["r0", "r1", "r3"]
    assert count_rows(d) == 5 and count_rows(str(d / "*.parquet")) == 3


def test_file_level_errors(tmp_path):
    p = tmp_path / "x.parquet"
    p.write_text('{"id": "a"}\n')
    with pytest.raises(InputError, match=r"x\.parquet: not a readable Parquet file"):
        list(read_rows(p))
    empty = write_parquet(tmp_path / "e.parquet", table=pa.table({k: pa.array([], pa.string())
                                                                  for k in ("id", "code", "input", "output")}))
    with pytest.raises(InputError, match="the file is empty"):
        list(read_rows(empty))
    for bad in (p, empty, tmp_path / "missing.jsonl"):  # count_rows raises what read_rows would, up front
        with pytest.raises(InputError) as counted:
            count_rows(bad)
        with pytest.raises(InputError) as read:
            list(read_rows(bad))
        assert str(counted.value) == str(read.value)
    d = tmp_path / "nothing"
    d.mkdir()
    with pytest.raises(InputError, match="no .jsonl or .parquet shards"):
        list(read_rows(d))


def test_missing_pyarrow_gives_the_install_hint(tmp_path, monkeypatch):
    p = write_parquet(tmp_path / "a.parquet", [row(0)])
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow -> ImportError
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(InputError, match=r"pip install 'codemorph\[parquet\]'"):
        list(read_rows(p))


def test_parquet_is_read_one_batch_at_a_time(tmp_path, monkeypatch):
    p = write_parquet(tmp_path / "big.parquet", [row(i) for i in range(40)], row_group_size=10)
    monkeypatch.setattr(dataset, "PARQUET_BATCH_ROWS", 4)
    pulled = []
    real = pq.ParquetFile.iter_batches

    def counting(self, *a, **kw):
        for b in real(self, *a, **kw):
            pulled.append(b.num_rows)
            yield b

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", counting)
    it = read_rows(p)
    assert next(it).id == "r0"
    assert pulled == [4]
    assert [r.id for r in it][-1] == "r39" and sum(pulled) == 40


def test_json_lines_are_read_as_they_arrive(tmp_path):
    """A FIFO whose writer has not finished: the first row comes out before the end of the
    file exists, so read_rows never needs the whole input in memory."""
    fifo = tmp_path / "rows.jsonl"
    os.mkfifo(fifo)
    go_on = threading.Event()

    def writer():
        with open(fifo, "w") as fh:
            fh.write(json.dumps(row(0)) + "\n")
            fh.flush()
            go_on.wait(10)
            fh.write(json.dumps(row(1)) + "\n")

    t = threading.Thread(target=writer)
    t.start()
    try:
        it = read_rows(fifo)
        assert next(it).id == "r0"  # would block until the writer closes if the reader slurped the file
        go_on.set()
        assert [r.id for r in it] == ["r1"]
    finally:
        go_on.set()
        t.join(10)


def test_cli_generate_reports_a_schema_error_with_exit_code_2(tmp_path):
    p = write_parquet(tmp_path / "in.parquet", table=pa.table({"id": ["a"], "code": [CODE], "input": ["1"]}))
    res = subprocess.run([sys.executable, "-m", "codemorph.cli", "generate", str(p), "-o", str(tmp_path / "o.jsonl"),
                          "-t", "rename-locals", "--workers", "1"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert "in.parquet: no column 'output'" in " ".join(res.stderr.split())
