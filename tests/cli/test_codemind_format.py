"""``generate --format codemind``: -o names a dataset folder; every written row becomes a
CodeMind/ExeRScope row folder that reads back to the row, and the JSON Lines rows stay inside."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from codemorph.cli.main import app
from codemorph.rows.dataset import SourceRow, read_rows


def make_layout(root: Path) -> Path:
    rows = {
        ("humaneval", "HumanEval_1"): ("def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n",
                                       "total([1, 2, 3])", "6"),
        ("humaneval", "HumanEval_2"): ("def shout(s):\n    out = s.upper()\n    return out\n", "shout('ab')", "AB"),
    }
    for (bench, rid), (code, inp, out) in rows.items():
        d = root / "dataset" / bench / rid
        d.mkdir(parents=True)
        (d / "main.py").write_text(code)
        (d / "input.txt").write_text(inp)
        (d / "output.txt").write_text(out)
    return root / "dataset" / "humaneval"


def test_generate_writes_every_row_as_a_row_folder(tmp_path):
    src = make_layout(tmp_path / "in")
    out = tmp_path / "variants"
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(out), "--format", "codemind", "-t", "rename-locals",
                                   "--workers", "1"])
    assert res.exit_code == 0, res.output
    written = [json.loads(line) for line in (out / "codemorph.jsonl").read_text().splitlines()]
    assert {r["id"] for r in written} == {"HumanEval_1", "HumanEval_1:rename-locals", "HumanEval_2",
                                          "HumanEval_2:rename-locals"}
    folders = sorted(p.name for p in (out / "humaneval").iterdir())
    assert folders == ["HumanEval_1", "HumanEval_1__rename-locals", "HumanEval_2", "HumanEval_2__rename-locals"]
    assert (out / "humaneval" / "HumanEval_2__rename-locals" / "output.txt").read_text() == "AB"  # print(result)
    back = {r.id: r for r in read_rows(out) if isinstance(r, SourceRow)}
    for r in written:
        got = back[r["id"].replace(":", "__")]
        assert (got.code, got.input, got.output, got.input_kind) == (r["code"], r["input"], r["output"], "call")


def test_format_codemind_refuses_a_file_as_its_folder(tmp_path):
    src = make_layout(tmp_path / "in")
    target = tmp_path / "out.jsonl"
    target.write_text("")
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(target), "--format", "codemind"])
    assert res.exit_code == 2 and "is not a folder" in res.output
