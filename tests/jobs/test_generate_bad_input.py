"""Bad input through ``codemorph generate``: each bad row is rejected with a specific reason
and nothing is lost; a bad file gives a clear error and exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from codemorph.cli.main import EXIT_INPUT, app

runner = CliRunner()


def rows_of(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def run(*args: str):
    return runner.invoke(app, ["generate", *args, "-t", "rename-locals", "--workers", "1", "--extra-inputs", "1",
                               "--timeout", "2"])


def test_every_bad_row_is_rejected_with_its_reason(tmp_path):
    good = {"id": "good", "code": "def f(x):\n    return x * 2\n", "input": "3", "output": "6"}
    lines = [
        json.dumps(good).encode(),                                                            # 1
        b'{"id": "broken", "code": ',                                                         # 2
        json.dumps({"id": "nofields", "code": "def f():\n    return 1\n"}).encode(),          # 3
        json.dumps({"id": "badinput", "code": "def f(x):\n    return x\n", "input": "[1, 2",
                    "output": "1"}).encode(),                                                 # 4
        json.dumps({"id": "syntax", "code": "def f(x)\n    return x\n", "input": "1", "output": "1"}).encode(),
        json.dumps({"id": "py2", "code": "def f(x):\n    print \"hi\"\n    return x\n", "input": "1",
                    "output": "1"}).encode(),                                                 # 6
        b'{"id": "latin1", "code": "def f():\\n    return \'caf\xe9\'\\n", "input": "", "output": "1"}',
        json.dumps({"id": "huge", "code": "def f():\n    return 1\n" + "x = 1\n" * 180_000, "input": "",
                    "output": "1"}).encode(),                                                 # 8: 1 MB
        json.dumps({"id": 7, "code": "def f():\n    return 1\n", "input": 5, "output": "1"}).encode(),
        json.dumps(["not", "an", "object"]).encode(),                                         # 10
        json.dumps({**good, "id": "good"}).encode(),                                          # 11: duplicate id
        json.dumps({"id": "noentry", "code": "def g():\n    return 1\n", "input": "", "output": "1"}).encode(),
        json.dumps({"id": "wrong", "code": "def f():\n    return 1\n", "input": "", "output": "2"}).encode(),
    ]
    inp = tmp_path / "in.jsonl"
    inp.write_bytes(b"\n".join(lines) + b"\n\n")  # a blank line is not a row
    out = tmp_path / "out.jsonl"
    res = run(str(inp), "-o", str(out))
    assert res.exit_code == 0, res.output
    written = rows_of(out)
    assert [r["id"] for r in written] == ["good", "good:rename-locals"]
    rejects = rows_of(tmp_path / "out.rejects.jsonl")
    by_line = {r["line"]: (r["id"], r["stage"], r["reason"]) for r in rejects}
    # nothing lost: every row but the good one is in the rejects file, in input order
    assert [r["line"] for r in rejects] == list(range(2, 14))
    where = f"{inp}:"
    assert by_line[2] == (None, "read", f"{where}2: not valid JSON (Expecting value at column 26)")
    assert by_line[3] == ("nofields", "read", f"{where}3 (row 'nofields'): missing field 'input'; "
                                              f"missing field 'output'")
    assert by_line[4][:2] == ("badinput", "execute")
    assert by_line[4][2].startswith("row 'badinput' (line 4): input '[1, 2' does not evaluate to arguments: "
                                    "SyntaxError")
    assert by_line[5] == ("syntax", "parse", "row 'syntax' (line 5): code does not parse: line 1, column 9: "
                                             "expected ':'")
    assert by_line[6][:2] == ("py2", "parse")
    assert "line 2" in by_line[6][2] and "Missing parentheses in call to 'print'" in by_line[6][2]
    assert by_line[7] == (None, "read", f"{where}7: not UTF-8 (invalid continuation byte at byte 51)")
    assert by_line[8] == ("huge", "read", f"{where}8 (row 'huge'): field 'code' has 1,080,022 characters, "
                                          f"over the limit of 100,000")
    assert by_line[9] == ("7", "read", f"{where}9 (row '7'): field 'input' must be a string, got int")
    assert by_line[10] == (None, "read", f"{where}10: expected a JSON object, got list")
    assert by_line[11] == ("good", "read", f"{where}11 (row 'good'): duplicate id (first seen on line 1)")
    assert by_line[12] == ("noentry", "parse", "row 'noentry' (line 12): code defines no top-level function "
                                               "'f' (the entry point)")
    assert by_line[13][:2] == ("wrong", "execute")
    assert "recorded output '2' does not match execution, which returned 1" in by_line[13][2]
    # the rejected rows keep the original text so they can be fixed and rerun
    assert rejects[0]["row"] == '{"id": "broken", "code": '
    assert rejects[1]["row"] == {"id": "nofields", "code": "def f():\n    return 1\n"}


def test_empty_file(tmp_path):
    p = tmp_path / "empty.jsonl"
    p.write_text("\n\n")
    res = run(str(p), "-o", str(tmp_path / "out.jsonl"))
    assert res.exit_code == EXIT_INPUT == 2
    assert "the file is empty" in res.output


def test_nonexistent_path_and_directory(tmp_path):
    res = run(str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "out.jsonl"))
    assert res.exit_code == 2 and "no such file" in res.output
    # the error alone: no empty progress bar is drawn for a job that never started
    assert "rows" not in res.output and "━" not in res.output
    res = run(str(tmp_path), "-o", str(tmp_path / "out.jsonl"))
    assert res.exit_code == 2 and "is a directory" in res.output


def test_missing_output_directory(tmp_path):
    p = tmp_path / "in.jsonl"
    p.write_text(json.dumps({"id": "a", "code": "def f():\n    return 1\n", "input": "", "output": "1"}) + "\n")
    res = run(str(p), "-o", str(tmp_path / "nowhere" / "out.jsonl"))
    assert res.exit_code == 2 and "output directory does not exist" in res.output


def test_a_bad_limit_is_named_with_its_value(tmp_path):
    p = tmp_path / "in.jsonl"
    p.write_text(json.dumps({"id": "a", "code": "def f():\n    return 1\n", "input": "", "output": "1"}) + "\n")
    for opt, message in ((["--timeout", "0"], "--timeout must be > 0 seconds, got 0"),
                         (["--timeout", "-5"], "--timeout must be > 0 seconds, got -5"),
                         (["--memory", "0"], "--memory must be at least 64 MiB, got 0"),
                         (["--memory", "10"], "--memory must be at least 64 MiB, got 10"),
                         (["--output-limit", "0"], "--output-limit must be at least 1 KiB, got 0")):
        res = runner.invoke(app, ["generate", str(p), "-o", str(tmp_path / "o.jsonl"), *opt])
        assert res.exit_code == 2 and message in res.output, opt
        assert [w for w in ("--timeout", "--memory", "--output-limit") if w in res.output] == [opt[0]]


def test_resume_with_other_settings_is_refused(tmp_path):
    p = tmp_path / "in.jsonl"
    p.write_text(json.dumps({"id": "a", "code": "def f():\n    return 1\n", "input": "", "output": "1"}) + "\n")
    out = tmp_path / "out.jsonl"
    assert run(str(p), "-o", str(out)).exit_code == 0
    res = run(str(p), "-o", str(out), "--seed", "1", "--resume")
    assert res.exit_code == 2 and "other settings" in res.output


def test_sharded_input_directory_and_glob(tmp_path):
    from codemorph.rows.dataset import SourceRow, read_rows

    shards = tmp_path / "shards"
    shards.mkdir()
    row = {"code": "def f():\n    return 1\n", "input": "", "output": "1"}
    (shards / "part-0.jsonl").write_text(json.dumps({**row, "id": "a"}) + "\n" + json.dumps({**row, "id": "b"}) + "\n")
    (shards / "part-1.jsonl").write_text(json.dumps({**row, "id": "c"}) + "\n" + json.dumps({**row, "id": "a"}) + "\n")
    (shards / "notes.txt").write_text("not a shard")
    for where in (shards, str(shards / "part-*.jsonl")):
        got = list(read_rows(where))
        assert [r.id for r in got if isinstance(r, SourceRow)] == ["a", "b", "c"]
        dup = got[3]
        assert dup.line == 2 and str(shards / "part-1.jsonl") in dup.reason
        assert f"duplicate id (first seen on line 1 of {shards / 'part-0.jsonl'})" in dup.reason
    res = run(str(tmp_path / "nothing-*.jsonl"), "-o", str(tmp_path / "out.jsonl"))
    assert res.exit_code == 2 and "no file matches this pattern" in res.output
    out = tmp_path / "out.jsonl"
    assert run(str(shards), "-o", str(out)).exit_code == 0
    assert [json.loads(x)["id"] for x in out.read_text().splitlines() if ":" not in json.loads(x)["id"]] == \
        ["a", "b", "c"]
