"""The CodeMind/ExeRScope layout as input and output (codemorph.rows.codemind): each bench's
input kind, the documented rules for recorded outputs (and the reject naming the rule that
failed), the writer's round trip, and -- on ExeRScope's real folders -- that every row the
reader makes runs, in the sandbox, to the output the bench recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemorph.rows.codemind import (CodemindWriter, bench_kind, layout_input, layout_output, normalize_stdout,
                                     read_codemind_records, read_output, same_stdout)
from codemorph.rows.dataset import Reject, SourceRow, count_rows, input_files, read_rows
from codemorph.sandbox.kinds import row_request
from paths import needs_shared, shared


def write_row(root: Path, bench: str, rid: str, code: str, inp: str, out: str | None) -> Path:
    d = root / bench / rid
    d.mkdir(parents=True)
    (d / "main.py").write_text(code)
    (d / "input.txt").write_text(inp)
    if out is not None:
        (d / "output.txt").write_text(out)
    return d


# ----------------------------------------------------------------------------- output rules

@pytest.mark.parametrize("text, output", [
    ("[1, 2]", "[1, 2]"),                      # rule 1: a literal whose str is the text
    ("(1, 'a', None)", "(1, 'a', None)"),
    ("-4\n", "-4"),
    ("0.45600000000000307", "0.45600000000000307"),
    ("0b11", "'0b11'"),                        # rule 4: the str of a str (str(0b11) would be '3')
    ("010010", "'010010'"),
    ("[1,2]", "'[1,2]'"),                      # str([1, 2]) has spaces: this was a str
    ("'quoted'", '"\'quoted\'"'),              # the str of a str holding quotes
    ("SELECT a FROM t;", "'SELECT a FROM t;'"),
    ("", "''"),
    ("nan", "float('nan')"),                   # rule 2
    ("-inf", "float('-inf')"),
])
def test_call_outputs_are_read_as_print_wrote_them(text, output):
    assert read_output(text, "call") == output


def test_the_str_of_an_object_is_a_reject_naming_the_rule():
    with pytest.raises(ValueError, match="rule 'object'"):
        read_output("<__main__.Point object at 0x7f3a2c1e5d90>", "call")


def test_args_outputs_are_reprs_as_cruxeval_records_them():
    assert read_output("'hbtofdeiequ'\n", "args") == "'hbtofdeiequ'"


def test_stdin_outputs_keep_their_text_with_unix_line_ends():
    assert read_output("6\r\n3 2\r\n", "stdin") == "6\n3 2\n"
    assert read_output("2\r", "stdin") == "2\n"
    assert read_output("2 2 3 ", "stdin") == "2 2 3 "


def test_the_judge_rule_ignores_line_ends_and_trailing_blanks_only():
    assert same_stdout("YES", "YES\n")
    assert same_stdout("1 2 \r\n3\r\n\r\n", "1 2\n3\n")
    assert not same_stdout("1 2", "1  2")
    assert not same_stdout("a\n\nb", "a\nb")
    assert not same_stdout("yes", "YES")
    assert normalize_stdout("a \n\n") == "a"


def test_the_sandbox_compares_standard_output_by_the_same_rule(sandbox):
    code = "print(input().upper())\n"
    row = SourceRow("r", code, "yes\n", "YES", "__main__", 1, input_kind="stdin")
    assert sandbox.run_batch([row_request(row)])[0].output_matches is True
    row = SourceRow("r", code, "yes\n", "YE S", "__main__", 1, input_kind="stdin")
    assert sandbox.run_batch([row_request(row)])[0].output_matches is False


# ----------------------------------------------------------------------------- kinds and rows

def test_unknown_benches_get_their_kind_from_their_inputs(tmp_path):
    write_row(tmp_path, "mine", "a", "def f(x):\n    return x\n", "f(1)", "1")
    write_row(tmp_path, "other", "a", "def g(x):\n    return x\n", "g(1)", "1")
    write_row(tmp_path, "script", "a", "print(int(input()) + 1)\n", "41\n", "42\n")
    assert [bench_kind(tmp_path / b) for b in ("mine", "other", "script")] == ["args", "call", "stdin"]


def test_a_class_harness_runs_on_an_instance_and_is_written_back_on_the_class(tmp_path):
    code = ("import unittest\nclass Box:\n    def get(self):\n        return 3\n"
            "class Test(unittest.TestCase):\n    def test(self):\n        return Box().get()\n")
    write_row(tmp_path, "classeval", "ClassEval_0@Box.get", code, "Test.test()", "3")
    (row,) = read_rows(tmp_path)
    assert (row.input_kind, row.input, row.entry_point, row.output) == ("call", "Test().test()", "Test", "3")
    data = {"id": row.id, "code": row.code, "input": row.input, "output": row.output, "input_kind": "call",
            "entry_point": row.entry_point, **row.extra}
    assert layout_input(data) == "Test.test()"


def test_a_folder_that_breaks_a_rule_is_one_reject_and_the_others_are_read(tmp_path):
    write_row(tmp_path, "humaneval", "ok", "def add(a, b):\n    return a + b\n", "add(1, 2)", "3")
    write_row(tmp_path, "humaneval", "obj", "class P: pass\ndef mk():\n    return P()\n", "mk()",
              "<__main__.P object at 0x7f00>")
    write_row(tmp_path, "humaneval", "nocall", "x = 1\n", "1 + 1", "2")
    write_row(tmp_path, "humaneval", "noout", "def g():\n    return 1\n", "g()", None)
    items = {i.id: i for i in read_rows(tmp_path / "humaneval")}
    assert isinstance(items["ok"], SourceRow)
    assert "output.txt: rule 'object'" in items["obj"].reason
    assert "input.txt: not a call" in items["nocall"].reason
    assert "missing output.txt" in items["noout"].reason
    assert all(isinstance(items[k], Reject) for k in ("obj", "nocall", "noout"))
    assert count_rows(tmp_path / "humaneval") == 4


def test_a_whole_layout_is_read_bench_by_bench_with_bench_prefixed_ids(tmp_path):
    write_row(tmp_path / "dataset", "cruxeval", "sample_0", "def f(x):\n    return x\n", "f(1)", "1")
    write_row(tmp_path / "dataset", "Avatar", "p1", "print(input())\n", "hi\n", "hi\n")
    rows = list(read_rows(tmp_path))
    assert [(r.id, r.input_kind, r.extra["bench"]) for r in rows] == [("Avatar/p1", "stdin", "Avatar"),
                                                                       ("cruxeval/sample_0", "args", "cruxeval")]
    assert len(input_files(tmp_path)) == 6  # the three files of both row folders


def test_written_layout_reads_back_to_the_same_rows(tmp_path):
    rows = [
        {"id": "sample_1:dead-code", "code": "def f(x):\n    return x * 2\n", "input": "'ab'", "output": "'abab'",
         "entry_point": "f", "bench": "cruxeval"},
        {"id": "HumanEval/3__0", "code": "def g(s):\n    return s[::-1]\n", "input": "g('0b11')",
         "output": "'11b0'", "entry_point": "g", "input_kind": "call", "bench": "humaneval"},
        {"id": "p1:perturb:ValueError:0", "code": "print(int(input()))\n", "input": "x\n", "output": None,
         "exception": {"type": "ValueError"}, "entry_point": "__main__", "input_kind": "stdin", "bench": "Avatar"},
        {"id": "p1", "code": "print(int(input()))\n", "input": "5\n", "output": "5\n", "entry_point": "__main__",
         "input_kind": "stdin", "bench": "Avatar"},
    ]
    w = CodemindWriter(tmp_path)
    folders = [w.write(r) for r in rows]
    assert [f.relative_to(tmp_path).as_posix() for f in folders] == [
        "cruxeval/sample_1__dead-code", "humaneval/HumanEval_3__0", "Avatar/p1__perturb__ValueError__0", "Avatar/p1"]
    assert (folders[1] / "output.txt").read_text() == "11b0"     # print(result): a str without quotes
    assert (folders[0] / "input.txt").read_text() == "f('ab')"
    assert (folders[2] / "output.txt").read_text() == "raises ValueError"
    back = {r.id: r for r in read_rows(tmp_path)}
    for r, rid in ((rows[0], "cruxeval/sample_1__dead-code"), (rows[1], "humaneval/HumanEval_3__0"),
                   (rows[3], "Avatar/p1")):
        got = back[rid]
        assert (got.code, got.input, got.output, got.input_kind) == (r["code"], r["input"], r["output"],
                                                                     r.get("input_kind", "args"))


def test_two_rows_for_one_folder_are_refused(tmp_path):
    from codemorph.errors import InputError

    w = CodemindWriter(tmp_path, bench="b")
    w.write({"id": "a:b", "code": "", "input": "", "output": "1"})
    with pytest.raises(InputError, match="both be written"):
        w.write({"id": "a__b", "code": "", "input": "", "output": "1"})


def test_layout_output_is_what_print_writes():
    assert layout_output({"output": "'x y'", "input_kind": "call"}) == "x y"
    assert layout_output({"output": "[1, 'a']", "input_kind": "call"}) == "[1, 'a']"
    assert layout_output({"output": "float('inf')", "input_kind": "call"}) == "inf"
    assert layout_output({"output": "'x'"}) == "'x'"  # args rows keep CRUXEval's repr


# ----------------------------------------------------------------------------- ExeRScope's folders

@needs_shared("codemind-layout", "dataset", "Avatar")
@pytest.mark.parametrize("bench, kind", [("cruxeval", "args"), ("humaneval", "call"), ("classeval", "call"),
                                         ("Avatar", "stdin")])
def test_every_bench_folder_of_exerscope_is_read(bench, kind):
    folder = shared("codemind-layout", "dataset", bench)
    records = list(read_codemind_records(folder))
    items = list(read_rows(folder))
    assert len(items) == len(records) == sum(1 for d in folder.iterdir() if d.is_dir())
    rows = [i for i in items if isinstance(i, SourceRow)]
    assert rows and all(r.input_kind == kind for r in rows)
    assert all(r.extra == {"bench": bench} for r in rows)
    assert [i.reason for i in items if isinstance(i, Reject)] == []


@needs_shared("codemind-layout", "dataset", "Avatar")
@pytest.mark.parametrize("bench", ["humaneval", "classeval", "Avatar"])
def test_rows_read_from_exerscope_run_to_the_recorded_output(bench, sandbox):
    """Every row runs its kind's way; the recorded output is matched wherever the program,
    run afresh, gives it.  The rows that do not match are listed with what they gave."""
    rows = [r for r in read_rows(shared("codemind-layout", "dataset", bench)) if isinstance(r, SourceRow)]
    outcomes = sandbox.run_batch([row_request(r) for r in rows])
    matched = [r.id for r, o in zip(rows, outcomes) if o.output_matches]
    others = {r.id: (o.status, o.stdout if r.input_kind == "stdin" else o.value_repr)
              for r, o in zip(rows, outcomes) if not o.output_matches}
    assert len(matched) >= 0.85 * len(rows), others
    for r, o in zip(rows, outcomes):
        if r.input_kind == "stdin" and o.status == "returned":
            assert o.output_matches == same_stdout(r.output, o.stdout)
