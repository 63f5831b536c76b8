"""Reading input rows: every line becomes a row or a reject that says what and where."""

from __future__ import annotations

import json

import pytest

from codemorph import InputError
from codemorph.rows.dataset import Reject, SourceRow, default_dataset_path, read_rows, rejects_path


def write(tmp_path, lines, name="in.jsonl"):
    p = tmp_path / name
    p.write_bytes(b"".join(l if isinstance(l, bytes) else (l + "\n").encode() for l in lines))
    return p


def good(i, **over):
    row = {"id": f"r{i}", "code": "def f(x):\n    return x\n", "input": "1", "output": "1"}
    row.update(over)
    return json.dumps(row)


def test_valid_rows_and_extra_fields(tmp_path):
    p = write(tmp_path, [good(0, note="keep me"), "", good(1, entry_point="g")])
    rows = list(read_rows(p))
    assert [type(r) for r in rows] == [SourceRow, SourceRow]
    assert rows[0].extra == {"note": "keep me"} and rows[0].entry_point == "f" and rows[0].line == 1
    assert rows[1].entry_point == "g" and rows[1].line == 3


def test_each_bad_line_is_a_specific_reject(tmp_path):
    p = write(tmp_path, [
        good(0),
        '{"id": "r1", "code": "x"',                     # truncated JSON
        "[1, 2]",                                        # not an object
        json.dumps({"id": "r3", "code": "x", "input": "1"}),  # missing output
        json.dumps({"id": "r4", "code": 5, "input": "1", "output": "1"}),
        good(0),                                         # duplicate id
        b'{"id": "r6", "code": "\xff", "input": "1", "output": "1"}\n',  # not UTF-8
        json.dumps({"id": 7, "code": "def f():\n    return 1\n", "input": "", "output": "1"}),  # int id accepted
    ])
    rows = list(read_rows(p))
    assert isinstance(rows[0], SourceRow)
    rej = rows[1:7]
    assert all(isinstance(r, Reject) for r in rej)
    assert f"{p}:2: not valid JSON" in rej[0].reason and rej[0].row.startswith('{"id": "r1"')
    assert "expected a JSON object, got list" in rej[1].reason
    assert "(row 'r3')" in rej[2].reason and "missing field 'output'" in rej[2].reason
    assert "field 'code' must be a string, got int" in rej[3].reason
    assert "duplicate id (first seen on line 1)" in rej[4].reason and rej[4].line == 6
    assert "not UTF-8" in rej[5].reason and rej[5].line == 7
    assert isinstance(rows[7], SourceRow) and rows[7].id == "7"


def test_file_level_errors(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        list(read_rows(tmp_path / "missing.jsonl"))
    with pytest.raises(InputError, match="is a directory"):
        list(read_rows(tmp_path))
    empty = write(tmp_path, ["", "  "], "empty.jsonl")
    with pytest.raises(InputError, match="the file is empty"):
        list(read_rows(empty))


def test_rejects_path():
    assert rejects_path("out/data.jsonl").as_posix() == "out/data.rejects.jsonl"
    assert rejects_path("data").as_posix() == "data.rejects.jsonl"


def test_bundled_default_data_set_is_valid():
    rows = list(read_rows(default_dataset_path()))
    assert len(rows) >= 20
    assert all(isinstance(r, SourceRow) for r in rows)
    assert len({r.id for r in rows}) == len(rows)


def test_an_entry_point_is_read_as_the_name_python_defines(tmp_path):
    # identifiers are read in NFKC form (PEP 3131): 'ｇ' names g, which ``def g`` and
    # ``def ｇ`` both define; an ASCII name is kept as written
    p = write(tmp_path, [good(0, entry_point="ｇ", code="def g(x):\n    return x\n"),
                         good(1, entry_point="ｆ", code="def ｆ(x):\n    return x\n"), good(2, entry_point="g")])
    assert [r.entry_point for r in read_rows(p)] == ["g", "f", "g"]


def test_a_line_nested_too_deeply_for_the_json_decoder_is_a_reject_and_reading_goes_on(tmp_path):
    p = write(tmp_path, [good(0), "[" * 200_000, good(2)])
    rows = list(read_rows(p))
    assert [type(r) for r in rows] == [SourceRow, Reject, SourceRow]
    assert rows[1].reason == f"{p}:2: not valid JSON we can read (nested too deeply)" and rows[1].line == 2
    assert rows[1].row == "[" * 200


@pytest.mark.parametrize("damage, why", [
    ("truncated", "Compressed file ended before the end-of-stream marker was reached"),
    ("bad crc", "CRC check failed"),
])
def test_a_damaged_gzip_input_is_one_error_naming_the_file_and_the_damage(tmp_path, damage, why):
    import gzip

    from codemorph.rows.dataset import count_rows

    data = bytearray(gzip.compress("".join(good(i) + "\n" for i in range(200)).encode()))
    if damage == "truncated":
        data = data[: len(data) // 2]
    else:
        data[-6] ^= 0xFF  # a byte of the stored CRC-32
    p = tmp_path / "in.jsonl.gz"
    p.write_bytes(bytes(data))
    for read in (count_rows, lambda path: list(read_rows(path))):
        with pytest.raises(InputError) as err:
            read(p)
        assert str(err.value).startswith(f"{p}: the gzip file is damaged ({why}")
        assert str(err.value).endswith(f"expected a complete gzip file of JSON Lines rows (check it with "
                                       f"`gzip -t {p}`, and copy or download it again)")
