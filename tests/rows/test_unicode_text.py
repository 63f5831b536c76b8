"""Text that UTF-8 or Python source cannot hold: a byte order mark, lone surrogates, NUL."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from codemorph.cli.main import app
from codemorph.rows.dataset import Reject, RowWriter, SourceRow, read_rows

runner = CliRunner()


def row(rid, code="def f(x):\n    return x\n", inp="1", out="1"):
    return {"id": rid, "code": code, "input": inp, "output": out}


def test_a_byte_order_mark_before_the_first_row_is_skipped(tmp_path):
    p = tmp_path / "bom.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + (json.dumps(row("a")) + "\n" + json.dumps(row("b")) + "\n").encode())
    rows = list(read_rows(p))
    assert [(type(r), r.id, r.line) for r in rows] == [(SourceRow, "a", 1), (SourceRow, "b", 2)]


def test_lone_surrogates_are_rejected_by_field_and_rejects_stay_writable(tmp_path):
    p = tmp_path / "in.jsonl"
    rows = [row("ok1"), row("sur", code="def f(s):\n    return s + '\ud800'\n", inp="'a'", out="'a'"),
            row("surin", inp="'\udfff'"), row("id\ud800"), row("ok2")]
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="ascii")  # json escapes them
    got = list(read_rows(p))
    assert [type(r) for r in got] == [SourceRow, Reject, Reject, Reject, SourceRow]
    assert got[1].reason == (f"{p}:2 (row 'sur'): field 'code' holds a lone surrogate (U+D800 at character 27), "
                             "which Python source cannot contain and UTF-8 cannot encode")
    assert "field 'input' holds a lone surrogate (U+DFFF at character 2)" in got[2].reason
    assert got[3].id == "id\ud800" and "field 'id' holds a lone surrogate (U+D800 at character 3)" in got[3].reason
    out = tmp_path / "rejects.jsonl"
    with RowWriter(out) as w:
        w.write({"id": got[3].id, "reason": got[3].reason})
        w.write({"id": "é"})
    lines = out.read_bytes().decode("utf-8").splitlines()
    assert lines[1] == '{"id": "é"}'  # other rows keep plain UTF-8
    assert json.loads(lines[0])["id"] == "id\ud800"


def test_generate_runs_through_surrogate_and_nul_rows(tmp_path):
    p = tmp_path / "in.jsonl"
    rows = [row("ok1"), row("sur", code="def f(s):\n    return s + '\ud800'\n", inp="'a'", out="'a'"),
            row("nul", code="def f(x):\n    return x\x00\n"), row("ok2", code="def f(x):\n    return x + 1\n",
                                                                  out="2")]
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["generate", str(p), "-o", str(out), "-t", "rename-locals", "--workers", "1"])
    assert res.exit_code == 0, res.output
    written = [json.loads(l) for l in out.read_text().splitlines()]
    assert [r["id"] for r in written if r["kind"] == "original"] == ["ok1", "ok2"]
    rejects = {r["id"]: r for r in map(json.loads, (tmp_path / "out.rejects.jsonl").read_text().splitlines())}
    assert set(rejects) == {"sur", "nul"}
    assert rejects["sur"]["stage"] == "read"
    assert rejects["nul"]["reason"].endswith("code does not parse: source code string cannot contain null bytes")
