"""The generate job end to end: determinism, accounting, schema, and the CLI around it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from codemorph.rows.dataset import default_dataset_path
from codemorph.jobs.generate import GenerateConfig, generate

BIN = Path(sys.executable).parent / "codemorph"
FOUR = ("rename-locals", "dead-code", "for-to-while", "invert-if")


def _rows(path):
    return [json.loads(l) for l in Path(path).read_text().splitlines()]


def _small_input(tmp_path, n=6):
    src = tmp_path / "in.jsonl"
    lines = default_dataset_path().read_text().splitlines()[:n]
    lines.append(json.dumps({"id": "bad", "code": "def f(x):\n    return x\n", "input": "1", "output": "2"}))
    lines.append("{not json")
    src.write_text("\n".join(lines) + "\n")
    return src


def test_same_seed_same_bytes_any_worker_count(tmp_path):
    src = _small_input(tmp_path)
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    generate(src, a, GenerateConfig.from_transforms(FOUR, seed=5, workers=1))
    generate(src, b, GenerateConfig.from_transforms(FOUR, seed=5, workers=2))
    generate(src, c, GenerateConfig.from_transforms(FOUR, seed=6, workers=1))
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_every_input_row_is_accounted_for_and_schema_holds(tmp_path):
    src = _small_input(tmp_path)
    out = tmp_path / "out.jsonl"
    s = generate(src, out, GenerateConfig.from_transforms(FOUR, seed=0))
    rows = _rows(out)
    rejects = _rows(tmp_path / "out.rejects.jsonl")
    originals = {r["id"] for r in rows if r["kind"] == "original"}
    rejected = [r for r in rejects if r.get("kind") != "variant"]
    assert len(originals) + len(rejected) == 8 == s.rows_read
    assert {r["line"] for r in rejected} == {7, 8}
    assert "recorded output '2' does not match execution, which returned 1" in rejected[0]["reason"]
    for r in rows:
        assert set(r) >= {"id", "code", "input", "output", "entry_point", "original_id", "transforms", "seed", "kind"}
        if r["kind"] == "code-transform":
            assert r["id"] == f"{r['original_id']}:{r['transforms'][0]}"
            assert r["verification"]["status"] == "equivalent" and r["verification"]["inputs"] >= 10
            assert r["code"] != next(o["code"] for o in rows if o["id"] == r["original_id"])
    assert s.per_transform["rename-locals"]["written"] == 6
    # none of the six demo programs assigns a value computed from its variables
    # (len(...), list(...), a comprehension...) that a check would guard: no dead-code site
    assert s.per_transform["dead-code"]["written"] == 0 and s.per_transform["dead-code"]["not-applicable"] == 6


def test_cli_generate_default_data_list_apply_and_errors(tmp_path):
    res = subprocess.run([str(BIN), "generate", "-o", "demo.jsonl", "-t", "invert-if", "--workers", "1"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "invert-if" in res.stdout and "rows read" in res.stdout
    assert re.search(r"peak memory per worker \(MiB, host process / sandbox\): \d+ / \d+\n", res.stdout)
    assert len([r for r in _rows(tmp_path / "demo.jsonl") if r["kind"] == "original"]) == \
        len(default_dataset_path().read_text().splitlines())

    missing = subprocess.run([str(BIN), "generate", "nope.jsonl", "-o", "x.jsonl"], cwd=tmp_path,
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "nope.jsonl: no such file" in missing.stderr

    unknown = subprocess.run([str(BIN), "generate", "-t", "invert-iff"], cwd=tmp_path, capture_output=True, text=True)
    assert unknown.returncode == 2 and "did you mean invert-if" in unknown.stderr

    prog = tmp_path / "p.py"
    prog.write_text("def f(x):\n    return x\n")
    nothing = subprocess.run([str(BIN), "apply", str(prog), "-t", "for-to-while"], cwd=tmp_path,
                             capture_output=True, text=True)
    assert nothing.returncode == 0
    assert nothing.stdout == prog.read_text()
    assert "for-to-while: not applied" in nothing.stderr

    bad = tmp_path / "bad.py"
    bad.write_text("def f(x):\n    return (x\n")
    err = subprocess.run([str(BIN), "apply", str(bad), "-t", "invert-if"], cwd=tmp_path, capture_output=True, text=True)
    assert err.returncode == 2 and "line 2" in err.stderr


def test_cli_verify_reports_counterexample(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("def f(xs):\n    return sum(xs)\n")
    b.write_text("def f(xs):\n    return sum(xs[1:])\n")
    res = subprocess.run([str(BIN), "verify", str(a), str(b), "--input", "[0, 1]"], capture_output=True, text=True)
    assert res.returncode == 3, res.stdout + res.stderr
    assert "differs" in res.stdout and "counterexample: f(" in res.stdout
    same = subprocess.run([str(BIN), "verify", str(a), str(a), "--input", "[0, 1]"], capture_output=True, text=True)
    assert same.returncode == 0 and "equivalent" in same.stdout


def test_prove_records_proved_variants_and_changes_nothing_else(tmp_path):
    src = _small_input(tmp_path, n=8)
    plain, proved = tmp_path / "plain.jsonl", tmp_path / "proved.jsonl"
    generate(src, plain, GenerateConfig.from_transforms(("invert-if", "dead-code"), workers=1))
    s = generate(src, proved, GenerateConfig.from_transforms(("invert-if", "dead-code"), workers=1, prove=True))
    a, b = _rows(plain), _rows(proved)
    assert [(r["id"], r["code"], r["output"]) for r in a] == [(r["id"], r["code"], r["output"]) for r in b]
    variants = [r for r in b if r["kind"] == "code-transform"]
    assert variants and s.variants_written == len(variants)
    for r, before in zip(variants, [r for r in a if r["kind"] == "code-transform"]):
        ver = r["verification"]
        assert set(ver) == {"status", "inputs", "proved", "coverage"}
        assert ver["proved"] is (ver["status"] == "proved")
        assert before["verification"]["proved"] is False and before["verification"]["status"] == "equivalent"
        assert ver["inputs"] == before["verification"]["inputs"] and ver["coverage"] == before["verification"]["coverage"]
        hit, total = ver["coverage"]["lines"]
        assert 0 < hit <= total
    assert any(r["verification"]["proved"] for r in variants)


def test_output_row_comes_from_the_variants_own_run(tmp_path):
    # the written output is what the rewritten program returned on the row's input (its check
    # on that input also evaluates the recorded output), never a copy of the input row's field
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "r", "code": "def f(xs):\n    out = []\n    for x in xs:\n"
                                                  "        out.append(x * 2.0)\n    return out\n",
                               "input": "[1, 2]", "output": "[2, 4]"}) + "\n")
    out = tmp_path / "out.jsonl"
    s = generate(src, out, GenerateConfig.from_transforms(("for-to-while",), workers=1, extra_inputs=5))
    rows = _rows(out)
    assert [r["kind"] for r in rows] == ["original", "code-transform"] and s.variants_written == 1
    # the original's too: the recorded "[2, 4]" only compares equal
    assert rows[1]["output"] == "[2.0, 4.0]" and rows[0]["output"] == "[2.0, 4.0]"
    assert "while" in rows[1]["code"] and rows[1]["verification"]["inputs"] == 6


def test_summary_reports_peak_memory_per_worker_and_one_parse_per_row(tmp_path, monkeypatch):
    import os

    import codemorph.engine.program as program_module

    parsed: list[str] = []
    real = program_module._parse_cst
    monkeypatch.setattr(program_module, "_parse_cst", lambda source, filename: parsed.append(source) or
                        real(source, filename))
    src = _small_input(tmp_path, n=3)
    summary = generate(src, tmp_path / "out.jsonl", GenerateConfig.from_transforms(FOUR, workers=1))
    codes = [json.loads(l)["code"] for l in src.read_text().splitlines()[:4]]
    # one libcst parse per row (the three rows and the 'bad' one; variants are compiled, not parsed)
    assert summary.variants_written > 0 and sorted(parsed) == sorted(codes)
    # one worker (this process, --workers 1): its own peak and its sandbox's
    assert list(summary.memory) == [os.getpid()]
    peak = summary.memory[os.getpid()]
    assert peak.worker == os.getpid() and peak.host > 20 * 1024**2 and peak.sandbox > 5 * 1024**2
