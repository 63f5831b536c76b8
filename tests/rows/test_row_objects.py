"""``row_objects``: the rows of a file as generate's reader reads them, unvalidated (what
``evaluate`` and ``analyze`` read data sets with)."""

from __future__ import annotations

import gzip
import json

import pytest

from codemorph.errors import InputError
from codemorph.rows.dataset import Reject, row_objects

MBPP = {"task_id": 7, "text": "t", "code": "def rev(s):\n    return s[::-1]", "test_list": ["assert rev('ab') == 'ba'"],
        "test_setup_code": "", "challenge_test_list": []}


def test_row_objects_expand_layouts_keep_null_outputs_and_reject_bad_lines(tmp_path):
    p = tmp_path / "d.jsonl.gz"
    exc_row = {"id": "e", "code": "def f(x):\n    return x[0]", "input": "[]", "output": None,
               "exception": {"type": "IndexError"}}
    p.write_bytes(gzip.compress(("\ufeff" + json.dumps(MBPP) + "\n\n" + json.dumps(exc_row) + "\n[1]\n").encode()))
    got = list(row_objects(p))
    assert [w for w, _ in got] == [f"{p}:1", f"{p}:3", f"{p}:4"]
    assert got[0][1] == {"text": "t", "id": "7__0", "code": "def rev(s):\n    return s[::-1]", "input": "rev('ab')",
                         "output": "'ba'", "entry_point": "rev", "input_kind": "call"}
    assert got[1][1] == exc_row
    assert isinstance(got[2][1], Reject) and got[2][1].reason == f"{p}:4: expected a JSON object, got list"


def test_row_objects_refuse_a_codemind_folder(tmp_path):
    row = tmp_path / "dataset" / "cruxeval" / "sample_0"
    row.mkdir(parents=True)
    (row / "main.py").write_text("def f(x):\n    return x\n")
    (row / "input.txt").write_text("f(1)")
    (row / "output.txt").write_text("1")
    with pytest.raises(InputError, match="a CodeMind/ExeRScope folder, not JSON Lines or Parquet rows"):
        list(row_objects(tmp_path / "dataset" / "cruxeval"))
