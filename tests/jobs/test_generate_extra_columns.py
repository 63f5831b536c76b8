"""Columns of an input row that codemorph does not read (``difficulty``, ``source``...) are
copied, unchanged and first, to every row derived from it: the original, each variant and
each input perturbation (``generate --perturb-inputs`` and ``perturb``); a column named like
one of codemorph's own fields of a row holds codemorph's value there."""

from __future__ import annotations

import json
from pathlib import Path

from codemorph.jobs.generate import GenerateConfig, generate
from codemorph.jobs import PerturbConfig, perturb_dataset
from codemorph.perturb import Budget

CODE = "def f(xs):\n    first = xs[0]\n    return first + 1\n"
EXTRA = {"difficulty": "easy", "source": {"set": "unit", "tags": ["index", 3]}}
# named like codemorph fields: "kind" of every row, "verification" of a variant row,
# "exception" and "target" of a perturbation row
CLASH = {"kind": "theirs", "verification": "theirs", "exception": "theirs", "target": "theirs"}
ROW = {**EXTRA, **CLASH, "id": "r0", "code": CODE, "input": "[1, 2]", "output": "2"}
PERTURB = PerturbConfig(exceptions=("IndexError",), output_changes=1, budget=Budget(executions=300), seed=0)


def _write(path: Path) -> Path:
    path.write_text(json.dumps(ROW) + "\n")
    return path


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _check_perturbation(row: dict) -> None:
    assert {k: row[k] for k in EXTRA} == EXTRA and list(row)[:len(EXTRA)] == list(EXTRA)
    assert row["kind"] == "input-perturbation" and row["target"] in ("IndexError", "output-change")
    if row["target"] == "IndexError":
        assert row["exception"]["type"] == "IndexError" and row["input"] == "[]"
    else:
        assert row["exception"] is None
    assert row["verification"] == "theirs"  # not a field of perturbation rows: the input's column


def test_generate_copies_extra_columns_to_every_derived_row(tmp_path):
    out = tmp_path / "out.jsonl"
    generate(_write(tmp_path / "in.jsonl"), out,
             GenerateConfig.from_transforms(("rename-locals",), extra_inputs=5, min_inputs=6, perturb=PERTURB))
    rows = _read(out)
    assert [r["kind"] for r in rows] == ["original", "code-transform", "input-perturbation", "input-perturbation"]
    original, variant, *perturbations = rows
    for r in rows:
        assert {k: r[k] for k in EXTRA} == EXTRA
    assert original["verification"] == "theirs" and original["exception"] == "theirs"
    assert variant["id"] == "r0:rename-locals" and variant["code"] != CODE
    assert variant["verification"]["status"] == "equivalent"  # codemorph's own field wins
    assert variant["exception"] == "theirs" and variant["target"] == "theirs"
    assert list(variant)[:len(EXTRA) + len(CLASH)] == list(EXTRA) + list(CLASH)  # the same order as the input
    for p in perturbations:
        _check_perturbation(p)


def test_perturb_copies_extra_columns_to_its_rows(tmp_path):
    out = tmp_path / "out.jsonl"
    summary = perturb_dataset(_write(tmp_path / "in.jsonl"), out, PERTURB)
    rows = _read(out)
    assert summary.rows_written == len(rows) == 2
    for r in rows:
        _check_perturbation(r)
        assert r["original_id"] == "r0" and r["seed_input"] == "[1, 2]"
