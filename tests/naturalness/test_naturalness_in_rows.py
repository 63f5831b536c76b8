"""The naturalness figure on written rows: ``generate`` records ``naturalness_delta`` on every
variant, ``--max-naturalness-delta`` rejects the variants above it, the summary and
``analyze`` show it per transform."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from codemorph.cli.main import app
from codemorph.jobs.generate import GenerateConfig, generate
from codemorph.naturalness import naturalness_delta
from codemorph.scoring.analyze import naturalness_table
from codemorph.scoring.predictions import EvalRow

#: each with a value just computed (``len``, ``list``): where dead-code writes its check
ROWS = [
    {"id": "a", "code": "def f(xs):\n    size = len(xs)\n    total = 0\n    for x in xs:\n        total += x\n"
                        "    return total + size\n",
     "input": "[1, 2, 3]", "output": "9"},
    {"id": "b", "code": "def f(n):\n    digits = list(str(n))\n    if n > 3 and digits:\n        return n - 3\n"
                        "    return n * 2\n", "input": "5", "output": "2"},
]


@pytest.fixture()
def data(tmp_path):
    p = tmp_path / "in.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return p


def _read(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_variant_records_its_naturalness_delta(tmp_path, data) -> None:
    out = tmp_path / "out.jsonl"
    summary = generate(data, out, GenerateConfig.from_transforms(("dead-code", "rename-locals"), extra_inputs=5))
    rows = _read(out)
    originals = {r["id"]: r["code"] for r in rows if r["kind"] == "original"}
    variants = [r for r in rows if r["kind"] == "code-transform"]
    assert len(variants) == 4
    for r in variants:
        assert r["naturalness_delta"] == round(naturalness_delta(originals[r["original_id"]], r["code"]), 3)
        assert list(r)[-2:] == ["naturalness_delta", "kind"]
    assert all("naturalness_delta" not in r for r in rows if r["kind"] == "original")
    dead = [r["naturalness_delta"] for r in variants if r["transforms"] == ["dead-code"]]
    assert sorted(summary.naturalness_per_transform["dead-code"]) == sorted(dead)


def test_max_naturalness_delta_moves_variants_above_it_to_the_rejects(tmp_path, data) -> None:
    names = ("dead-code", "rename-locals")
    generate(data, tmp_path / "all.jsonl", GenerateConfig.from_transforms(names, extra_inputs=5))
    deltas = {r["id"]: r["naturalness_delta"] for r in _read(tmp_path / "all.jsonl") if r["kind"] == "code-transform"}
    limit = sorted(deltas.values())[1]  # keeps the two least surprising variants (and ties)
    out = tmp_path / "out.jsonl"
    summary = generate(data, out, GenerateConfig.from_transforms(names, extra_inputs=5, max_naturalness_delta=limit))
    kept = [r["id"] for r in _read(out) if r["kind"] == "code-transform"]
    rejects = _read(tmp_path / "out.rejects.jsonl")
    assert sorted(kept) == sorted(i for i, d in deltas.items() if d <= limit)
    assert sorted(r["id"] for r in rejects) == sorted(i for i, d in deltas.items() if d > limit)
    assert rejects and all(r["stage"] == "naturalness" for r in rejects)
    for r in rejects:
        assert r["reason"] == (f"naturalness delta {deltas[r['id']]:+.3f} bits/token over the original is above "
                               f"--max-naturalness-delta {limit:g}")
    assert sum(c["unnatural"] for c in summary.per_transform.values()) == len(rejects)


def test_cli_summary_shows_the_mean_per_transform(tmp_path, data) -> None:
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["generate", str(data), "-o", str(out), "-t", "dead-code", "--workers", "1",
                                   "--extra-inputs", "5", "--max-naturalness-delta", "5"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    deltas = [r["naturalness_delta"] for r in _read(out) if r["kind"] == "code-transform"]
    row = next(line for line in res.output.splitlines() if line.startswith("│ dead-code"))
    cells = [c.strip() for c in row.strip("│").split("│")]
    # variant, 9 counts (weak and withheld among them), unnatural (a limit was given), naturalness, time
    assert len(cells) == 13 and cells[10] == "0" and cells[11] == f"{sum(deltas) / len(deltas):+.3f}"
    assert "naturalness: mean naturalness_delta of the written variants" in " ".join(res.output.split())


def test_analyze_table_uses_the_field_or_measures_it() -> None:
    orig = "def f(x):\n    return x + 1\n"
    var = "def f(x):\n    if type(x) is int and x * x < 0:\n        return 0\n    return x + 1\n"
    rows = {
        "o": EvalRow("o", orig, "1", "2"),
        "o:dead-code": EvalRow("o:dead-code", var, "1", "2", original_id="o", kind="code-transform",
                               transforms=("dead-code",), extra={"naturalness_delta": 0.25}),
        "o:dead-code2": EvalRow("o:dead-code2", var, "1", "2", original_id="o", kind="code-transform",
                                transforms=("dead-code",)),
    }
    programs = [{"id": i} for i in rows]
    table = naturalness_table(programs, rows)
    measured = round(naturalness_delta(orig, var), 3)
    assert table == [{"group": "dead-code", "variants": 2, "mean": (0.25 + measured) / 2,
                      "median": (0.25 + measured) / 2, "min": min(0.25, measured), "max": max(0.25, measured)}]
    assert [p.get("naturalness_delta") for p in programs] == [None, 0.25, measured]
