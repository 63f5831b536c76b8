"""Harmless standard-library modules benchmark programs import are on the determinism
allow-list, so their rows are written (Avatar's codeforces_622_A imports ``cmd``); a stdin
program that reads standard input through its file descriptor is not (the sandbox's
standard input is an in-memory stream)."""

from __future__ import annotations

import json

from codemorph.jobs.generate import GenerateConfig, generate
from codemorph.sandbox.determinism import nondeterminism_source

# codeforces_622_A's shape: an unused ``from cmd import IDENTCHARS`` and a stdin script
CMD_SCRIPT = """from cmd import IDENTCHARS
n = int(input())
l = 1
r = n
while l < r:
    mid = l + (r - l) // 2
    if mid * (mid + 1) // 2 < n:
        l = mid + 1
    else:
        r = mid
l -= 1
print(n - l * (l + 1) // 2)
"""


def test_a_stdin_program_importing_cmd_is_written_with_its_variants(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "cf622", "code": CMD_SCRIPT, "input": "10\n", "output": "4\n",
                               "input_kind": "stdin"}) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    generate(src, out, GenerateConfig.from_transforms(("rename-locals", "dead-code")))
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["output"], r["input_kind"]) for r in written] == [
        ("cf622", "4\n", "stdin"), ("cf622:rename-locals", "4\n", "stdin"), ("cf622:dead-code", "4\n", "stdin")]


def test_reading_standard_input_by_its_descriptor_is_flagged():
    assert nondeterminism_source("import sys\nprint(open(sys.stdin.fileno()).read())\n", input_kind="stdin") == \
        "reads the interpreter or its environment (sys.stdin.fileno)"
    assert nondeterminism_source("import sys\nprint(sys.stdin.buffer.raw.read())\n", input_kind="stdin") == \
        "reads the interpreter or its environment (sys.stdin.buffer.raw.read)"
    assert nondeterminism_source("import sys\nprint(sys.stdin.buffer.read().split())\n", input_kind="stdin") is None


def test_exerscope_rows_with_a_database_a_file_and_cmd_are_written(tmp_path):
    """ExeRScope's ClassEval rows that create ``test.db`` with sqlite3 (add_book) or open a
    file (write_csv), and Avatar's codeforces_622_A (``from cmd import IDENTCHARS``), read
    from the CodeMind layout, are written with their variants."""
    import shutil

    from paths import shared

    names = {"classeval": ["ClassEval_14@BookManagementDB.add_book", "ClassEval_26@CSVProcessor.write_csv"],
             "Avatar": ["codeforces_622_A"]}
    for bench, ids in names.items():
        for rid in ids:
            shutil.copytree(shared("codemind-layout", "dataset", bench, rid), tmp_path / "dataset" / bench / rid)
    out = tmp_path / "out.jsonl"
    generate(tmp_path / "dataset", out, GenerateConfig.from_transforms(("rename-locals",)))
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted((r["id"], r["kind"]) for r in written) == sorted(
        [(f"{b}/{i}", "original") for b, ids in names.items() for i in ids]
        + [(f"{b}/{i}:rename-locals", "code-transform") for b, ids in names.items() for i in ids])
    outputs = {r["id"]: r["output"] for r in written}
    assert outputs["classeval/ClassEval_14@BookManagementDB.add_book"] == (
        "(('Introduction to Python', 'John Smith', 1), 'Introduction to Python', 'Introduction to Python', "
        "'John Smith', 'John Smith', 1)")
    assert outputs["classeval/ClassEval_26@CSVProcessor.write_csv"] == "0"
    assert outputs["Avatar/codeforces_622_A"] == "311\n"
