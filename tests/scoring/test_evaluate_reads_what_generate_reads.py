"""``evaluate`` and ``analyze`` read data sets with ``generate``'s reader: HumanEval and MBPP
layouts (each assertion a ``call`` row), ``.gz`` files; a file they cannot read is refused
with a message naming it (exit 2), never a traceback."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from codemorph.errors import InputError
from codemorph.scoring.predictions import load_rows

CLI = Path(sys.executable).parent / "codemorph"

HUMANEVAL = {"task_id": "Example/0", "entry_point": "count_vowels",
             "prompt": "def count_vowels(text):\n    \"\"\"Count the vowels.\"\"\"\n",
             "canonical_solution": "    return sum(1 for ch in text if ch in 'aeiou')\n",
             "test": "def check(candidate):\n    assert candidate('banana') == 3\n    assert candidate('') == 0\n"}
MBPP = {"task_id": 7, "text": "Reverse the words.", "code": "def rev(s):\n    return ' '.join(reversed(s.split()))",
        "test_list": ["assert rev('a b') == 'b a'", "assert rev('') == ''"], "test_setup_code": "",
        "challenge_test_list": []}


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_humaneval_and_mbpp_layout_rows_are_read_as_call_rows(tmp_path):
    p = tmp_path / "d.jsonl"
    p.write_text(json.dumps(HUMANEVAL) + "\n" + json.dumps(MBPP) + "\n")
    rows = load_rows(p)
    assert [(r.id, r.input, r.output, r.entry_point, r.input_kind) for r in rows] == [
        ("Example/0__0", "count_vowels('banana')", "3", "count_vowels", "call"),
        ("Example/0__1", "count_vowels('')", "0", "count_vowels", "call"),
        ("7__0", "rev('a b')", "'b a'", "rev", "call"),
        ("7__1", "rev('')", "''", "rev", "call"),
    ]


def test_a_gzipped_data_set_is_read_like_the_plain_file(tmp_path):
    plain = tmp_path / "d.jsonl"
    plain.write_text(json.dumps(MBPP) + "\n" + json.dumps({"id": "a", "code": "def f(x):\n    return x",
                                                             "input": "1", "output": "1"}) + "\n")
    gz = tmp_path / "d.jsonl.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    assert [(r.id, r.input, r.output) for r in load_rows(gz)] == [(r.id, r.input, r.output) for r in load_rows(plain)]


def test_a_layout_row_without_a_scorable_assertion_is_refused_naming_the_file_and_line(tmp_path):
    p = tmp_path / "d.jsonl"
    p.write_text(json.dumps({**MBPP, "test_list": ["assert rev('a') != 'b'"]}) + "\n")
    with pytest.raises(InputError) as err:
        load_rows(p)
    assert str(err.value) == (f"{p}:1 (mbpp row 7): no assertion of its test compares a call of the entry point "
                              f"with a literal (1 assertion at the top level of the test, none of the form "
                              f"`assert CALL == LITERAL`)")


def test_evaluate_and_analyze_score_a_gzipped_mbpp_file(tmp_path):
    (tmp_path / "d.jsonl.gz").write_bytes(gzip.compress((json.dumps(MBPP) + "\n").encode()))
    (tmp_path / "p.jsonl").write_text('{"id": "7__0", "prediction": "\'b a\'"}\n{"id": "7__1", "prediction": "\'x\'"}\n')
    res = run("evaluate", "d.jsonl.gz", "-p", "p.jsonl", "--k", "1", "--workers", "1", "-o", "s.jsonl", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    scores = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert [(s["id"], s["correct"]) for s in scores] == [("7__0", [True]), ("7__1", [False])]
    res = run("analyze", "d.jsonl.gz", "--results", "s.jsonl", "-o", "r", "--no-plots", "--no-dynamic", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    assert (tmp_path / "r" / "report.html").is_file()


def test_a_truncated_gz_data_set_is_refused_naming_the_file(tmp_path):
    data = gzip.compress((json.dumps(MBPP) + "\n").encode() * 50)
    (tmp_path / "d.jsonl.gz").write_bytes(data[:40])
    (tmp_path / "p.jsonl").write_text('{"id": "7__0", "prediction": "1"}\n')
    res = run("evaluate", "d.jsonl.gz", "-p", "p.jsonl", cwd=tmp_path)
    assert (res.returncode, res.stderr) == (2, "error: d.jsonl.gz: unreadable (Compressed file ended before the "
                                               "end-of-stream marker was reached)\n")
    res = run("analyze", "d.jsonl.gz", "--results", "p.jsonl", "-o", "r", "--no-plots", cwd=tmp_path)
    assert (res.returncode, res.stderr) == (2, "error: d.jsonl.gz: unreadable (Compressed file ended before the "
                                               "end-of-stream marker was reached)\n")


def test_a_data_set_line_that_is_not_utf8_is_refused_naming_file_and_line(tmp_path):
    (tmp_path / "d.jsonl").write_bytes(b'{"id": "a\x8b"}\n')
    (tmp_path / "p.jsonl").write_text('{"id": "a", "prediction": "1"}\n')
    res = run("evaluate", "d.jsonl", "-p", "p.jsonl", cwd=tmp_path)
    assert (res.returncode, res.stderr) == (2, "error: d.jsonl:1: not UTF-8 (invalid start byte at byte 9)\n")


def test_a_parquet_data_set_is_read_as_generate_reads_it(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": ["a", "b"], "code": ["def f(x):\n    return x + 1", "def f(x):\n    return x"],
                             "input": ["1", "2"], "output": ["2", "2"]}), tmp_path / "d.parquet")
    assert [(r.id, r.input, r.output) for r in load_rows(tmp_path / "d.parquet")] == [("a", "1", "2"), ("b", "2", "2")]
