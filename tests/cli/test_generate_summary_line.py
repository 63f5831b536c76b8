"""generate's last line counts rejected input rows and rejected variants apart: a run whose
only rejects are variants says "0 rows and 1 variant rejected", not "1 rows rejected" nor
"0 rows rejected"."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from codemorph.cli.main import app

ROWS = [
    {"id": "a", "code": "def f(x):\n    y = x + 1\n    return y\n", "input": "1", "output": "2"},
    {"id": "b", "code": "def f(x):\n    return x +\n", "input": "1", "output": "2"},  # does not parse
]


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_only_variants_rejected_are_counted_as_variants(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(ROWS[0]) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    # every variant is less natural than a naturalness delta of -1000 bits per token allows
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(out), "-t", "rename-locals",
                                   "--max-naturalness-delta", "-1000", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "; 0 rows and 1 variant rejected (see" in _flat(res.stdout)
    (reject,) = [json.loads(line) for line in out.with_name("out.rejects.jsonl").read_text().splitlines()]
    assert (reject["kind"], reject["stage"]) == ("variant", "naturalness")


def test_a_rejected_row_and_written_variants_are_counted_apart(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(out), "-t", "rename-locals", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "2 rows read: 1 original and 1 variant written" in _flat(res.stdout)
    assert "; 1 row and 0 variants rejected (see" in _flat(res.stdout)


def test_one_row_read_is_counted_in_the_singular(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(ROWS[0]) + "\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(tmp_path / "out.jsonl"), "-t", "rename-locals",
                                   "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "1 row read: 1 original and 1 variant written to" in _flat(res.stdout)
