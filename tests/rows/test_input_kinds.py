"""Rows say how their program is run (``input_kind``): read, validated, written back only when
not ``args``, and a call input of one plain name splits into entry point and arguments."""

from __future__ import annotations

import json

from codemorph.rows import INPUT_KINDS, OriginalRow, PerturbationRow, Reject, SourceRow, VariantRow, call_parts
from codemorph.rows.dataset import read_rows
from codemorph.rows.schema import row_json, row_reject


def _write(tmp_path, rows):
    p = tmp_path / "in.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return p


def test_input_kind_is_read_and_absent_means_args(tmp_path):
    p = _write(tmp_path, [
        {"id": "a", "code": "def f(x):\n    return x\n", "input": "1", "output": "1"},
        {"id": "c", "code": "def g(x):\n    return x\n", "input": "g(2)", "output": "2", "input_kind": "call"},
        {"id": "s", "code": "print(input())\n", "input": "hi\n", "output": "hi\n", "input_kind": "stdin",
         "source": "Avatar"},
        {"id": "n", "code": "x = 1\n", "input": "1", "output": "1", "input_kind": None},
    ])
    rows = list(read_rows(p))
    assert [r.input_kind for r in rows] == ["args", "call", "stdin", "args"]
    assert rows[2].extra == {"source": "Avatar"}  # the kind is a field of its own, not an extra column
    assert set(INPUT_KINDS) == {"args", "call", "stdin"}


def test_unknown_input_kind_is_a_read_reject_naming_the_kinds(tmp_path):
    p = _write(tmp_path, [{"id": "x", "code": "x = 1\n", "input": "1", "output": "1", "input_kind": "argv"}])
    (rej,) = list(read_rows(p))
    assert isinstance(rej, Reject) and rej.stage == "read"
    assert "'input_kind' must be one of args, call, stdin, got 'argv'" in rej.reason


def test_written_rows_carry_the_kind_only_when_it_is_not_args():
    common = dict(id="r", code="c", input="i", output="o", entry_point="f", original_id="r", seed=0)
    assert "input_kind" not in OriginalRow(**common).to_json()
    d = OriginalRow(**common, input_kind="stdin").to_json()
    assert list(d)[:6] == ["id", "code", "input", "output", "entry_point", "input_kind"] and d["input_kind"] == "stdin"
    v = VariantRow("r:x", "c", "i", "o", "f", "r", ["x"], 0, {}, 1, input_kind="call").to_json()
    assert v["input_kind"] == "call" and v["kind"] == "code-transform"
    assert "input_kind" not in VariantRow("r:x", "c", "i", "o", "f", "r", ["x"], 0, {}, 1).to_json()
    p = PerturbationRow("r:perturb:ValueError:0", "r", "c", "x\n", "f", None, {"type": "ValueError"}, "ValueError",
                        "1\n", 1, "mutation", False, 0, input_kind="stdin").to_json()
    assert p["input_kind"] == "stdin"


def test_rejects_keep_the_kind_of_the_row_as_read():
    row = SourceRow("s", "print(1)\n", "", "1\n", "f", 3, input_kind="stdin")
    assert row_json(row)["input_kind"] == "stdin"
    assert row_reject(row, "execute", "why").row["input_kind"] == "stdin"
    assert "input_kind" not in row_json(SourceRow("a", "x", "1", "1", "f", 1))


def test_call_parts_splits_a_call_of_one_plain_name():
    assert call_parts("has_close_elements([1.0, 2.0, 3.9], 0.3)") == ("has_close_elements", "[1.0, 2.0, 3.9], 0.3")
    assert call_parts(" add(6, 8) ") == ("add", "6, 8")
    assert call_parts("f()") == ("f", "")
    assert call_parts("count('abc' + 'd', k=(1, 2))") == ("count", "'abc' + 'd', k=(1, 2)")
    for text in ("Test().test()", "f(1) + 1", "obj.m(2)", "f(1)(2)", "f(", "5 5 7", "(f)(1)"):
        assert call_parts(text) is None, text
