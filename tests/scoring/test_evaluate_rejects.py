"""`evaluate` survives malformed prediction entries: each goes to the rejects file (file,
line, row id when readable, what was expected) and its row counts as a missing prediction;
only a predictions source that cannot be read at all stops the command (exit 2).

Programs and predictions run only in codemorph's sandbox.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from codemorph.cli.main import app
from codemorph.scoring.predictions import load_predictions, read_cruxeval_generations

ROWS = [
    {"id": "a", "code": "def f(x):\n    return x + 1\n", "input": "1", "output": "2"},
    {"id": "b", "code": "def f(s):\n    return s * 2\n", "input": "'ab'", "output": "'abab'"},
    {"id": "c", "code": "def f(xs):\n    return len(xs)\n", "input": "[1, 2, 3]", "output": "3"},
    {"id": "d", "code": "def f(x):\n    return -x\n", "input": "4", "output": "-4"},
]

# line 1: a right; 2: not JSON; 3: b without 'prediction'; 4: c wrong; 5: a again; 6: blank (not an entry);
# 7: not an object; 8: d with a number; 9: not UTF-8
PREDICTION_LINES = [
    b'{"id": "a", "prediction": "2"}',
    b'{"id": "b", "prediction": ',
    b'{"id": "b"}',
    b'{"id": "c", "prediction": ["4", "3"]}',
    b'{"id": "a", "prediction": "3"}',
    b'',
    b'["d", "-4"]',
    b'{"id": "d", "prediction": -4}',
    b'{"id": "e", "prediction": "\xff"}',
]


def _files(tmp_path):
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    pred = tmp_path / "pred.jsonl"
    pred.write_bytes(b"\n".join(PREDICTION_LINES) + b"\n")
    return data, pred


def _expected_rejects(pred):
    # a one-model file: every entry is that model's, even a line that is not JSON
    return [
        {"id": None, "line": 2, "stage": "read", "reason": f"{pred}:2: not valid JSON (Expecting value at column 27)",
         "row": '{"id": "b", "prediction": ', "file": str(pred), "model": "pred"},
        {"id": "b", "line": 3, "stage": "read",
         "reason": f"{pred}:3 (row 'b'): expected an object with fields 'id' and 'prediction'; missing 'prediction'",
         "row": {"id": "b"}, "file": str(pred), "model": "pred"},
        {"id": "a", "line": 5, "stage": "read",
         "reason": f"{pred}:5 (row 'a'): duplicate prediction for id 'a' (model 'pred'; the one on line 1 is kept)",
         "row": {"id": "a", "prediction": "3"}, "file": str(pred), "model": "pred"},
        {"id": None, "line": 7, "stage": "read",
         "reason": f"{pred}:7: expected an object with fields 'id' and 'prediction', got a list",
         "row": ["d", "-4"], "file": str(pred), "model": "pred"},
        {"id": "d", "line": 8, "stage": "read",
         "reason": f"{pred}:8 (row 'd'): 'prediction' must be a string or a list of strings, got an integer",
         "row": {"id": "d", "prediction": -4}, "file": str(pred), "model": "pred"},
        {"id": None, "line": 9, "stage": "read", "reason": f"{pred}:9: not UTF-8 (invalid start byte at byte 27)",
         "row": '{"id": "e", "prediction": "\ufffd"}\n', "file": str(pred), "model": "pred"},
    ]


def _lines(path):
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_malformed_prediction_lines_go_to_the_rejects_file_and_the_good_lines_are_scored(tmp_path):
    data, pred = _files(tmp_path)
    out, summary = tmp_path / "scores.jsonl", tmp_path / "summary.json"
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(pred), "-o", str(out), "--summary", str(summary),
                                 "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert _lines(tmp_path / "scores.rejects.jsonl") == _expected_rejects(pred)
    # a (1 of 1 right) and c (1 of 2 right) are scored; b and d lost their only prediction: missing, as a row
    # without any prediction is (skipped by default)
    scores = {s["id"]: (s["correct"], s["status"]) for s in _lines(out)}
    assert scores == {"a": ([True], ["pass"]), "c": ([False, True], ["fail:AssertionError", "pass"])}
    [s] = json.loads(summary.read_text())
    assert (s["rows_scored"], s["rows_missing"], s["predictions_rejected"], s["rows_rejected"]) == (2, 2, 6, 2)
    assert s["accuracy"] == 0.75 and s["pass_at_k"] == {"1": 0.75, "5": None}
    said = " ".join(r.output.split())
    assert f"6 prediction entries rejected (not scored; their rows count as missing): see {tmp_path}" in said
    assert ("6 prediction entries of " in said and "2 rows have no prediction because of them and count as missing "
            "(not scored, as every missing row)" in said)


def test_rows_of_rejected_predictions_count_as_wrong_with_missing_wrong(tmp_path):
    data, pred = _files(tmp_path)
    out, summary = tmp_path / "scores.jsonl", tmp_path / "summary.json"
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(pred), "-o", str(out), "--summary", str(summary),
                                 "--missing", "wrong", "--workers", "1"])
    assert r.exit_code == 0, r.output
    scores = {s["id"]: (s["correct"], s["status"]) for s in _lines(out)}
    assert scores == {"a": ([True], ["pass"]), "b": ([False], ["missing"]),
                      "c": ([False, True], ["fail:AssertionError", "pass"]), "d": ([False], ["missing"])}
    [s] = json.loads(summary.read_text())
    assert (s["rows_scored"], s["rows_missing"], s["predictions_rejected"], s["rows_rejected"]) == (4, 2, 6, 2)
    assert s["accuracy"] == (1 + 0 + 0.5 + 0) / 4


def test_rejects_file_is_empty_with_output_and_absent_without_when_nothing_is_rejected(tmp_path, monkeypatch):
    data, pred = _files(tmp_path)
    pred.write_text('{"id": "a", "prediction": "2"}\n')
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(pred), "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "pred.rejects.jsonl").exists()
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(pred), "-o", "s.jsonl", "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "s.rejects.jsonl").read_text() == ""


def test_without_output_the_rejects_go_to_the_current_folder_named_after_the_predictions(tmp_path, monkeypatch):
    data, pred = _files(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(pred), "--match", "exact"])
    assert r.exit_code == 0, r.output
    assert _lines(work / "pred.rejects.jsonl") == _expected_rejects(pred)


@pytest.mark.parametrize("content, said", [
    (b"", "no predictions in the file"),
    (b"\n\n", "no predictions in the file"),
    (b'not json\n{"id": "a"}\n', "no prediction could be read: every entry (2) is malformed; the first: "),
])
def test_a_predictions_file_with_nothing_readable_stops_the_run(tmp_path, content, said):
    data, pred = _files(tmp_path)
    pred.write_bytes(content)
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(pred), "-o", str(tmp_path / "s.jsonl")])
    assert r.exit_code == 2
    assert said in " ".join(r.output.split())
    assert not (tmp_path / "s.jsonl").exists()


def test_cruxeval_generations_entry_that_is_not_a_list_of_strings_is_rejected_with_its_line(tmp_path):
    p = tmp_path / "gen.json"
    p.write_text('{\n  "a": ["2", "3"],\n  "b": 7,\n  "c": ["3",\n        null],\n  "d": "-4"\n}\n')
    ps = read_cruxeval_generations(p)
    assert ps.predictions == {"a": ["2", "3"], "d": ["-4"]}
    assert [j.to_json() for j in ps.rejects] == [
        {"id": "b", "line": 3, "stage": "read", "row": {"b": 7}, "file": str(p), "model": "gen",
         "reason": f"{p}:3 (row 'b'): generations must be a string or a list of strings "
                   '({"b": ["...", ...]}), got an integer'},
        {"id": "c", "line": 4, "stage": "read", "row": {"c": ["3", None]}, "file": str(p), "model": "gen",
         "reason": f"{p}:4 (row 'c'): generations must be a string or a list of strings "
                   '({"c": ["...", ...]}), got a list holding null'},
    ]


def test_cruxeval_generations_file_that_is_not_json_stops_the_run(tmp_path):
    data, _ = _files(tmp_path)
    p = tmp_path / "gen.json"
    p.write_text('{"a": ["2"],\n "b": [\n')
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(p)])
    assert r.exit_code == 2
    assert "gen.json: not a JSON file" in " ".join(r.output.split())


def test_lm_eval_sample_lines_that_are_malformed_are_rejected(tmp_path):
    p = tmp_path / "samples_cruxeval_output_2024-01-01T00-00-00.jsonl"
    good = {"doc_id": 0, "doc": {"id": "a"}, "resps": [["[ANSWER]\nassert f(1) == 2\n[/ANSWER]"]]}
    p.write_text(json.dumps(good) + '\n{"doc_id": 1, "doc": {"id": "b"}}\n')
    [ps] = load_predictions(p)
    assert ps.format == "lm-eval" and ps.predictions == {"a": ["2"]}
    assert [(j.id, j.line, j.reason) for j in ps.rejects] == [
        ("b", 2, f"{p}:2 (row 'b'): expected an lm-eval sample with 'doc' (holding a string or integer 'id') and "
                 "'resps' (a list of strings or of lists)")]


def test_a_rejects_path_that_would_overwrite_the_predictions_stops_before_scoring(tmp_path):
    data, pred = _files(tmp_path)
    before = pred.read_bytes()
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(pred), "--rejects", str(pred)])
    assert r.exit_code == 2
    assert "the rejects file would overwrite an input or output file" in " ".join(r.output.split())
    assert pred.read_bytes() == before


def test_a_prediction_line_nested_too_deeply_is_rejected_and_the_run_goes_on(tmp_path):
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    pred = tmp_path / "pred.jsonl"
    pred.write_text('{"id": "a", "prediction": "2"}\n' + "[" * 200_000 + '\n{"id": "b", "prediction": "\'ab\'"}\n')
    out = tmp_path / "scores.jsonl"
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(pred), "-o", str(out), "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert _lines(tmp_path / "scores.rejects.jsonl") == [
        {"id": None, "line": 2, "stage": "read", "reason": f"{pred}:2: not valid JSON we can read (nested too deeply)",
         "row": "[" * 200, "file": str(pred), "model": "pred"}]
    assert {s["id"]: s["correct"] for s in _lines(out)} == {"a": [True], "b": [False]}


@pytest.mark.parametrize("target", ["data", "pred"])
@pytest.mark.parametrize("flag", ["-o", "--summary"])
def test_an_output_that_is_an_input_file_stops_before_scoring_and_leaves_it(tmp_path, target, flag):
    data, pred = _files(tmp_path)
    victim = data if target == "data" else pred
    before = victim.read_bytes()
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(pred), flag, str(victim), "--workers", "1"])
    assert r.exit_code == 2
    assert (f"{victim}: is one of the input files; writing it would destroy the input (choose another {flag})"
            in " ".join(r.output.split()))
    assert victim.read_bytes() == before


def test_an_empty_prediction_list_is_rejected_and_its_row_counts_as_missing(tmp_path):
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    pred = tmp_path / "pred.jsonl"
    pred.write_text('{"id": "a", "prediction": "2"}\n{"id": "b", "prediction": []}\n')
    out, summary = tmp_path / "scores.jsonl", tmp_path / "summary.json"
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(pred), "-o", str(out), "--summary", str(summary),
                                 "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert _lines(tmp_path / "scores.rejects.jsonl") == [
        {"id": "b", "line": 2, "stage": "read",
         "reason": f"{pred}:2 (row 'b'): 'prediction' must not be an empty list (it has no generation to score; "
                   "leave the row out instead)",
         "row": {"id": "b", "prediction": []}, "file": str(pred), "model": "pred"}]
    [s] = json.loads(summary.read_text())
    assert (s["rows_scored"], s["rows_missing"], s["rows_rejected"]) == (1, 3, 1)
    gens = tmp_path / "gens.json"
    gens.write_text('{"a": ["2"], "b": []}')
    ps = read_cruxeval_generations(gens)
    assert list(ps.predictions) == ["a"] and [j.id for j in ps.rejects] == ["b"]


def test_rejects_of_a_file_with_several_models_name_their_model_and_count_only_for_it(tmp_path):
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    pred = tmp_path / "pred.jsonl"
    pred.write_text("\n".join([
        '{"id": "a", "prediction": "2", "model": "m1"}',
        '{"id": "b", "prediction": "\'abab\'", "model": "m1"}',
        '{"id": "a", "prediction": "3", "model": "m2"}',
        '{"id": "b", "prediction": 7, "model": "m2"}',          # m2's b: rejected
        '{"id": "c", "model": "m1"}',                            # m1's c: rejected
        '{"id": "d", "prediction": ',                            # not JSON: whose cannot be told
    ]) + "\n")
    out, summary = tmp_path / "scores.jsonl", tmp_path / "summary.json"
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(pred), "-o", str(out), "--summary", str(summary),
                                 "--workers", "1", "--k", "1"])
    assert r.exit_code == 0, r.output
    assert [(j["id"], j["line"], j["model"], j["reason"]) for j in _lines(tmp_path / "scores.rejects.jsonl")] == [
        ("b", 4, "m2", f"{pred}:4 (row 'b', model 'm2'): 'prediction' must be a string or a list of strings, "
                       "got an integer"),
        ("c", 5, "m1", f"{pred}:5 (row 'c', model 'm1'): expected an object with fields 'id' and 'prediction'; "
                       "missing 'prediction'"),
        (None, 6, None, f"{pred}:6: not valid JSON (Expecting value at column 27)"),
    ]
    s1, s2 = json.loads(summary.read_text())
    assert s1["model"] == "m1" and s2["model"] == "m2"
    # m1's c is missing because of its own reject; m2 never predicted c: m1's reject is not m2's (it was
    # counted for both, 2 rejected rows and 3 rejected entries for m2)
    assert (s1["rows_scored"], s1["rows_missing"], s1["predictions_rejected"], s1["rows_rejected"]) == (2, 2, 2, 1)
    assert (s2["rows_scored"], s2["rows_missing"], s2["predictions_rejected"], s2["rows_rejected"]) == (1, 3, 2, 1)
    assert (s1["accuracy"], s2["accuracy"]) == (1.0, 0.0)
    said = " ".join(r.output.split())
    assert "3 prediction entries rejected (m2: 1, m1: 1, no model: 1) (not scored;" in said
    assert ("m1: warning: 2 prediction entries of " in said and "1 of them name no model and count for every "
            "model of the file" in said)


def test_a_codemind_predict_txt_that_is_not_utf8_is_a_reject_of_its_model_not_a_prediction(tmp_path):
    layout = tmp_path / "layout"
    for rid, out in (("sample_0", "2"), ("sample_1", "'abab'")):
        d = layout / "dataset" / "cruxeval" / rid
        d.mkdir(parents=True)
        (d / "main.py").write_text("def f(x):\n    return x + x\n")
        (d / "input.txt").write_text("f(1)" if rid == "sample_0" else "f('ab')")
        (d / "output.txt").write_text(out)
    for model, answers in (("m1", {"sample_0": b"\n2\n", "sample_1": b"\n'ab\xe9ab'\n"}),
                           ("m2", {"sample_0": b"\n3\n", "sample_1": b"\n'abab'\n"})):
        for rid, data in answers.items():
            d = layout / "Experiment_Results" / "ER" / model / "cruxeval" / rid
            d.mkdir(parents=True)
            (d / "predict.txt").write_bytes(data)
    out, summary = tmp_path / "scores.jsonl", tmp_path / "summary.json"
    r = CliRunner().invoke(app, ["evaluate", str(layout / "dataset" / "cruxeval"), "-p", str(layout), "--bench",
                                 "cruxeval", "-o", str(out), "--summary", str(summary), "--workers", "1", "--k", "1"])
    assert r.exit_code == 0, r.output
    f = layout / "Experiment_Results" / "ER" / "m1" / "cruxeval" / "sample_1" / "predict.txt"
    assert _lines(tmp_path / "scores.rejects.jsonl") == [
        {"id": "sample_1", "line": 2, "stage": "read", "file": str(f), "model": "m1", "row": "\n'ab\ufffdab'\n",
         "reason": f"{f} (row 'sample_1', model 'm1'): not UTF-8 (invalid continuation byte at byte 4)"}]
    s1, s2 = json.loads(summary.read_text())
    assert (s1["model"], s1["rows_scored"], s1["rows_rejected"], s1["accuracy"]) == ("m1", 1, 1, 1.0)
    assert (s2["model"], s2["rows_scored"], s2["rows_rejected"], s2["accuracy"]) == ("m2", 2, 0, 0.5)
