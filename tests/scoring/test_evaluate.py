"""Tests of prediction readers, CRUXEval-harness scoring, exact matching and robustness metrics.

Programs and predictions run only in codemorph's sandbox (through codemorph.evaluate).
"""

from __future__ import annotations

import json
import os
import stat

import pytest

from codemorph.errors import InputError
from codemorph.scoring.evaluate import (SWALLOW_LINE, check_program, evaluate_dataset, evaluate_many, evaluate_paths,
                                       names_exception, normalize_exact, read_scores, robustness, swallow_output,
                                       write_scores, write_summary)
from codemorph.scoring.metrics import wilson_interval
from codemorph.scoring.predictions import (EvalRow, PredictionSet, call_arguments, load_predictions, load_rows,
                                   read_codemind_dataset, read_jsonl_predictions)
from codemorph.sandbox.pool import Limits, Sandbox
from paths import SCORING_FIXTURES, SHARED_DATA, needs_shared

FIX = SCORING_FIXTURES / "evaluate"
SHARED = SHARED_DATA


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(Limits(timeout=1.0, recursion_limit=1000), workers=2) as sb:
        yield sb


# --------------------------------------------------------------------------- readers

def test_cruxeval_generations_reader():
    [ps] = load_predictions(FIX / "harness_output.json")
    assert ps.format == "cruxeval"
    assert ps.model == "harness_output"
    assert ps.predictions["sample_0"][:3] == ["'hia'", "'hi' + 'a'", "f('hi')"]
    assert len(ps.predictions["sample_1"]) == 8


def test_jsonl_reader_groups_models_and_accepts_lists(tmp_path):
    p = tmp_path / "p.jsonl"
    p.write_text('{"id": "a", "prediction": "1"}\n\n{"id": "a", "prediction": ["1", "2"], "model": "m2"}\n')
    sets = read_jsonl_predictions(p)
    assert [(s.model, s.predictions) for s in sets] == [("m2", {"a": ["1", "2"]}), ("p", {"a": ["1"]})]
    p.write_text('{"id": "a", "prediction": "1"}\n{"id": "a", "prediction": "2"}\n')
    [ps] = read_jsonl_predictions(p)  # a second prediction for an id is rejected, the first kept
    assert ps.predictions == {"a": ["1"]}
    assert [j.reason for j in ps.rejects] == [f"{p}:2 (row 'a'): duplicate prediction for id 'a' (model 'p'; the "
                                              f"one on line 1 is kept)"]
    p.write_text('{"id": "a", "prediction": 3}\n')  # no line gives a prediction: the file is unreadable
    with pytest.raises(InputError, match=r"no prediction could be read: every entry \(1\) is malformed; the first: "
                                         r".*p.jsonl:1 \(row 'a'\): 'prediction' must be a string or a list of "
                                         r"strings, got an integer"):
        read_jsonl_predictions(p)


def test_codemind_reader_layout_and_subfolders():
    sets = load_predictions(FIX / "codemind")
    assert [s.model for s in sets] == ["model-a", "model-b"]
    a, b = sets
    assert a.bench == "mini"
    assert a.predictions == {"sample_0": ["[1,2,3]"], "sample_1": ["'ab'"], "sample_10": ['{1: "x"}'],
                             "sample_2": ["8.50"]}
    assert b.predictions == {"sample_0": ["[1, 2, 3]"], "sample_1": ['"a b"']}  # sample_2 has no predict.txt
    # a model folder or bench folder works too
    [only_b] = load_predictions(FIX / "codemind" / "Experiment_Results" / "ER" / "model-b")
    assert only_b.predictions == b.predictions
    [only_a] = load_predictions(FIX / "codemind" / "Experiment_Results" / "ER" / "model-a" / "mini")
    assert only_a.predictions == a.predictions
    with pytest.raises(InputError, match="no model folder 'zzz'"):
        load_predictions(FIX / "codemind", model="zzz")


def test_codemind_dataset_reader():
    rows = read_codemind_dataset(FIX / "codemind" / "dataset" / "mini")
    assert [r.id for r in rows] == ["sample_0", "sample_1", "sample_2", "sample_10"]
    assert rows[0].input == "[3, 1, 2]" and rows[0].entry_point == "f" and rows[0].output == "[1, 2, 3]"


def test_call_arguments():
    assert call_arguments("f([1, 2], 'a)')\n") == ("f", "[1, 2], 'a)'")
    assert call_arguments("g()") == ("g", "")
    for bad in ("f(1) + 1", "x.f(1)", "f(1", "1"):
        with pytest.raises(InputError):
            call_arguments(bad)
    with pytest.raises(InputError, match="expected 'f'"):
        call_arguments("g(1)", "f")


def test_dataset_reader_exception_rows_and_groups():
    rows = {r.id: r for r in load_rows(FIX / "robustness_rows.jsonl")}
    assert rows["o3"].output is None and rows["o3"].exception_type == "IndexError"
    assert rows["o1"].group == "original"
    assert rows["o1:rename-locals"].group == "rename-locals"
    assert rows["o1:perturb:0"].group == "perturbation"
    assert rows["o4:perturb:0"].original_id == "o4"


def test_dataset_reader_rejects_bad_rows(tmp_path):
    p = tmp_path / "d.jsonl"
    p.write_text('{"id": "a", "code": "def f(): pass", "input": "", "output": null}\n')
    with pytest.raises(InputError, match=r"d.jsonl:1: 'output' is null but the row has no 'exception'"):
        load_rows(p)
    line = '{"id": "a", "code": "x", "input": "", "output": "1"}\n'
    p.write_text(line + line)
    with pytest.raises(InputError, match="duplicate id 'a'"):
        load_rows(p)


# --------------------------------------------------------------------------- rules

@pytest.mark.parametrize("text,expected", [
    ("IndexError", True),
    ("  IndexError: list index out of range\n", True),
    ("IndexError('list index out of range')", True),
    ("raise IndexError", True),
    ("builtins.IndexError", True),
    ("Traceback (most recent call last):\n  File \"x.py\", line 2, in f\nIndexError: list index out of range", True),
    ("'IndexError'", False),
    ("LookupError", False),
    ("IndexErrorX", False),
    ("IndexError + 1", False),
    ("[1, 2]", False),
])
def test_names_exception(text, expected):
    assert names_exception(text, "IndexError") is expected


@pytest.mark.parametrize("text,expected", [
    ("(IndexError)", True),
    ("((IndexError))('list index out of range')", True),
    ("raise (IndexError)", True),
    ("raise IndexError from KeyError", True),           # the raised class is the first one
    ("raise IndexError('a') from None", True),
    ("raise KeyError from IndexError", False),          # IndexError is only the cause
    ("raise IndexError, 'list index out of range'", True),  # Python 2's raise statement
    ("(builtins.IndexError)", True),
    ("builtins.IndexError('msg')", True),
    ("IndexError('msg')", True),
    ("IndexError(list index out of range)", True),      # an argument list that is no Python
    ("IndexError:", True),
    ("<class 'IndexError'>", True),
    ("raises (IndexError)", True),
    ("assert f([]) raises IndexError('list index out of range')", True),
    ("assert f([]) raises IndexError: list index out of range", True),
    ("numpy.IndexError", False),                        # another module's class
    ("IndexError.args", False),
    ("IndexError()()", False),
    ("(IndexError, KeyError)", False),                  # several classes
    ("IndexError or KeyError", False),
    ("raises IndexError or KeyError", False),
    ("IndexError(a b) or KeyError(c d)", False),
    ("This code never raises IndexError", False),       # prose, not the protocol
    ("'<class \\'IndexError\\'>'", False),            # a string
    ("\"IndexError('m')\"", False),
    ("raise", False),
    ("KeyError", False),                                # a subclass of LookupError, not IndexError
])
def test_an_exception_answer_is_right_only_when_the_class_it_names_is_the_raised_one(text, expected):
    assert names_exception(text, "IndexError") is expected


@pytest.mark.parametrize("text,raised,code,expected", [
    ("IndexError", "LookupError", None, False),          # a subclass of the raised class
    ("LookupError", "IndexError", None, False),          # a base class
    ("IOError", "OSError", None, True),                  # another name of the same builtin class
    ("builtins.EnvironmentError", "OSError", None, True),
    ("os.error", "OSError", None, False),                # a module's alias is not read
    ("json.JSONDecodeError", "JSONDecodeError", None, True),
    ("json.decoder.JSONDecodeError: Expecting value", "JSONDecodeError", None, True),
    ("builtins.JSONDecodeError", "JSONDecodeError", None, False),
    ("IndexError", "IndexError", "class IndexError(Exception):\n    pass", True),
    ("builtins.IndexError", "IndexError", "class IndexError(Exception):\n    pass", False),  # the program's own
    ("IOError", "OSError", "OSError = ValueError", False),
    ("IOError", "OSError", "class IOError(Exception):\n    pass", False),  # the answer names the program's class
])
def test_exception_answers_name_exactly_the_raised_class_with_prefixes_and_aliases(text, raised, code, expected):
    assert names_exception(text, raised, code) is expected


def test_exception_row_answers_in_parentheses_or_with_a_cause_score_by_the_class_they_raise():
    row = EvalRow("e", "def f(xs):\n    return xs[0]", "[]", None, exception_type="IndexError")
    gens = ["(IndexError)", "raise IndexError from KeyError", "raise KeyError from IndexError",
            "builtins.IndexError('list index out of range')", "numpy.IndexError", "LookupError"]
    for match in ("execution", "exact"):
        res = evaluate_dataset([row], PredictionSet("m", {"e": gens}), match=match, ks=(1,))
        assert res.rows[0].correct == [True, True, False, True, False, False]
        assert res.rows[0].status == ["names-exception", "names-exception", "no-match", "names-exception",
                                      "no-match", "no-match"]
        assert res.accuracy == 0.5 and res.pass_at_k == {1: 1 - (1 - 1 / 4) * (1 - 1 / 5) * (1 - 1 / 6)}


def test_normalize_exact_is_exerscopes():
    assert normalize_exact('\n {1: "a b"}\n') == "{1:'ab'}"


def test_check_program_follows_the_harness_template():
    row = EvalRow("r", "def f(s):\n    return s", "'x'", "'x'")
    assert check_program(row, "'x'", "output") == "def f(s):\n    return s\nassert 'x' == 'x'"
    assert check_program(row, "f('x')", "input") == "def f(s):\n    return s\nassert 'x' == f('x')"
    assert check_program(row, "f('x')", "output") is None  # the call itself in an output prediction
    assert check_program(row, "'x'", "input") is None  # no call in an input prediction
    assert check_program(row, "1 or 2", "output", strict=True) == "def f(s):\n    return s\nassert 'x' == (\n1 or 2\n)"
    assert check_program(row, "'x' ==", "output", strict=True) is None
    other = EvalRow("r", "def g(s):\n    return s", "'x'", "'x'", entry_point="g")
    assert check_program(other, "g('x')", "output") is None
    assert check_program(other, "f('x')", "input") is None


# --------------------------------------------------------------------------- scoring in the sandbox

def test_output_mode_harness_rules(sandbox):
    rows = load_rows(FIX / "harness_rows.jsonl")
    [ps] = load_predictions(FIX / "harness_output.json")
    res = evaluate_dataset(rows, ps, mode="output", ks=(1, 2), sandbox=sandbox)
    s0, s1 = res.rows
    assert s0.status == ["pass", "pass", "skip:call-in-output", "fail:AssertionError", "pass", "fail:SyntaxError"]
    assert s0.correct == [True, True, False, False, True, False]
    assert (s0.n, s0.c) == (6, 3)  # refused generations stay in n
    assert s1.correct == [True, True, True, True, False, False, False, False]
    assert res.pass_at_k[1] == pytest.approx((3 / 6 + 4 / 8) / 2)
    assert res.pass_at_k[2] == pytest.approx(((1 - 3 / 15) + (1 - 6 / 28)) / 2)
    assert res.executions == 5  # five distinct check programs for sample_0, none for the exception row

    strict = evaluate_dataset(rows, ps, mode="output", ks=(1,), strict=True, sandbox=sandbox)
    assert strict.rows[0].status == ["pass", "pass", "skip:call-in-output", "fail:AssertionError",
                                     "fail:AssertionError", "not-expression"]


def test_input_mode_harness_rules_and_timeout(sandbox):
    rows = load_rows(FIX / "harness_rows.jsonl")
    [ps] = load_predictions(FIX / "harness_input.json")
    res = evaluate_dataset(rows, ps, mode="input", ks=(1,), sandbox=sandbox)
    s0, s1 = res.rows
    assert s0.status == ["pass", "pass", "skip:no-call", "fail:AssertionError", "fail:SyntaxError", "timeout"]
    assert s0.c == 2 and s0.n == 6
    # exception row, input mode: the call must raise exactly IndexError
    assert s1.status == ["raised:IndexError", "returned", "raised:TypeError", "raised:IndexError"]
    assert s1.correct == [True, False, False, True]
    assert res.pass_at_k[1] == pytest.approx((2 / 6 + 2 / 4) / 2)


def test_codemind_execution_and_exact_match(sandbox):
    dataset = FIX / "codemind" / "dataset" / "mini"
    run = {r.model: r for r in evaluate_paths(dataset, FIX / "codemind", sandbox=sandbox)}
    exact = {r.model: r for r in evaluate_paths(dataset, FIX / "codemind", match="exact")}
    a, b = run["model-a"], run["model-b"]
    assert {s.id: s.correct[0] for s in a.rows} == {"sample_0": True, "sample_1": False, "sample_2": True,
                                                     "sample_10": True}
    assert {s.id: s.correct[0] for s in exact["model-a"].rows} == {"sample_0": True, "sample_1": True,
                                                                    "sample_2": False, "sample_10": True}
    assert a.accuracy == 0.75 and exact["model-a"].accuracy == 0.75
    assert b.missing == ["sample_2", "sample_10"] and b.accuracy == 1.0
    assert exact["model-b"].accuracy == 1.0 and len(exact["model-b"].rows) == 2
    wrong = evaluate_paths(dataset, FIX / "codemind", match="exact", missing="wrong", model="model-b")[0]
    assert wrong.accuracy == 0.5 and wrong.rows[-1].status == ["missing"]
    assert a.pass_at_k[5] is None and a.pass_at_k_rows[5] == 0  # one prediction per row: no pass@5


# --------------------------------------------------------------------------- robustness

def test_robustness_metrics_by_hand():
    rows = load_rows(FIX / "robustness_rows.jsonl")
    [ps] = load_predictions(FIX / "robustness_predictions.jsonl")
    res = evaluate_dataset(rows, ps, match="exact", n_resamples=200)
    rob = res.robustness
    assert rob is not None
    assert rob.original_rows == 4 and rob.original_accuracy == 0.75
    g = {x.group: x for x in rob.groups}
    assert sorted(g) == ["perturbation", "rename-locals"]
    r = g["rename-locals"]
    assert (r.rows, r.originals) == (4, 4)
    assert r.accuracy == 0.5 and r.original_accuracy == 0.75
    assert r.abs_drop == pytest.approx(0.25) and r.rel_drop == pytest.approx(1 / 3)
    assert r.robust_accuracy == 0.25 and r.flip_rate == 0.75
    p = g["perturbation"]
    assert (p.rows, p.accuracy, p.original_accuracy) == (2, 1.0, 0.5)
    assert p.abs_drop == pytest.approx(-0.5) and p.rel_drop == pytest.approx(-1.0)
    assert p.robust_accuracy == 0.5 and p.flip_rate == 0.5
    assert rob.robust_originals == 4 and rob.robust_accuracy == 0.25
    [e] = rob.exceptions
    assert (e.type, e.rows, e.accuracy) == ("IndexError", 2, 0.5)
    assert e.ci == pytest.approx(wilson_interval(1, 2))
    for x in (r, p):
        assert x.abs_drop_ci[0] <= x.abs_drop <= x.abs_drop_ci[1]
    # deterministic for a seed
    again = evaluate_dataset(rows, ps, match="exact", n_resamples=200).robustness
    assert again.to_json() == rob.to_json()


def test_robustness_execution_agrees_with_exact_on_fixture(sandbox):
    rows = load_rows(FIX / "robustness_rows.jsonl")
    [ps] = load_predictions(FIX / "robustness_predictions.jsonl")
    run = evaluate_dataset(rows, ps, sandbox=sandbox, n_resamples=50)
    exact = evaluate_dataset(rows, ps, match="exact", n_resamples=50)
    assert [s.correct for s in run.rows] == [s.correct for s in exact.rows]


def test_robustness_with_several_generations_pairs_sample_i_of_original_and_variant():
    from codemorph.scoring.evaluate import RowScore

    scores = [RowScore("a", "a", "original", "original", (), None, "m", [True, False], ["", ""]),
              RowScore("a:t", "a", "code-transform", "t", ("t",), None, "m", [True, False, False, False], [""] * 4)]
    rob = robustness(scores, n_resamples=10)
    [g] = rob.groups
    assert g.accuracy == 0.25 and g.original_accuracy == 0.5
    # samples 0 and 1 pair up: (right, right), (wrong, wrong): no flip, robust at sample 0 only
    assert g.robust_accuracy == 0.5
    assert g.flip_rate == 0.0


def test_identical_predictions_give_flip_rate_zero_and_robust_accuracy_equal_to_accuracy():
    from codemorph.scoring.evaluate import RowScore

    gens = [[True, False, True, True, False, True, True, True, False, True], [False] * 9 + [True]]
    scores = []
    for k, c in enumerate(gens):
        scores.append(RowScore(f"o{k}", f"o{k}", "original", "original", (), None, "m", c, [""] * 10))
        scores.append(RowScore(f"o{k}:t", f"o{k}", "code-transform", "t", ("t",), None, "m", list(c), [""] * 10))
    rob = robustness(scores, n_resamples=10)
    [g] = rob.groups
    assert g.flip_rate == 0.0
    assert g.robust_accuracy == g.accuracy == g.original_accuracy == pytest.approx((0.7 + 0.1) / 2)
    assert rob.robust_accuracy == pytest.approx(0.4)


def test_scores_round_trip(tmp_path):
    rows = load_rows(FIX / "robustness_rows.jsonl")
    [ps] = load_predictions(FIX / "robustness_predictions.jsonl")
    res = evaluate_dataset(rows, ps, match="exact", n_resamples=20)
    write_scores([res], tmp_path / "s.jsonl")
    write_summary([res], tmp_path / "s.json")
    back = read_scores(tmp_path / "s.jsonl")
    assert list(back) == ["toy"]
    assert [s.to_json() for s in back["toy"]] == [s.to_json() for s in res.rows]
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary[0]["accuracy"] == res.accuracy and summary[0]["robustness"]["robust_accuracy"] == 0.25


def test_write_scores_replaces_the_file_whole_never_in_place(tmp_path):
    rows = load_rows(FIX / "robustness_rows.jsonl")
    [ps] = load_predictions(FIX / "robustness_predictions.jsonl")
    res = evaluate_dataset(rows, ps, match="exact", n_resamples=10)
    out = tmp_path / "s.jsonl"
    out.write_text('{"another": "run"}\n')
    with open(out, "r+", encoding="utf-8") as other:  # another run's handle on the file it is writing
        write_scores([res], out)
        write_summary([res], tmp_path / "s.json")
        assert other.read() == '{"another": "run"}\n'  # its file was not truncated or written into
    assert [s.to_json() for s in read_scores(out)["toy"]] == [s.to_json() for s in res.rows]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json", "s.jsonl"]  # no temporary file left


# --------------------------------------------------------------------------- CLI

def test_cli_evaluate_writes_scores(tmp_path):
    from typer.testing import CliRunner

    from codemorph.cli.main import app

    out = tmp_path / "scores.jsonl"
    r = CliRunner().invoke(app, ["evaluate", str(FIX / "robustness_rows.jsonl"), "-p",
                                 str(FIX / "robustness_predictions.jsonl"), "--match", "exact", "-o", str(out),
                                 "--bootstrap", "20"])
    assert r.exit_code == 0, r.output
    assert ("paired robust accuracy (original and every variant correct at the same sample index): 25.00% of 4 "
            "originals") in " ".join(r.output.split())
    assert len(out.read_text().splitlines()) == 10
    bad = CliRunner().invoke(app, ["evaluate", str(FIX / "robustness_rows.jsonl"), "-p", str(tmp_path / "nope.json")])
    assert bad.exit_code == 2


def _evaluate_cli(*extra: str):
    from typer.testing import CliRunner

    from codemorph.cli.main import app

    return CliRunner().invoke(app, ["evaluate", str(FIX / "robustness_rows.jsonl"), "-p",
                                    str(FIX / "robustness_predictions.jsonl"), "--match", "exact",
                                    "--bootstrap", "20", *extra])


@pytest.mark.parametrize("value", ["0", "-5", "nan"])
def test_cli_evaluate_refuses_a_timeout_that_is_not_positive(value):
    r = _evaluate_cli("--timeout", value)
    assert r.exit_code == 2
    assert f"--timeout must be > 0 seconds, got {float(value):g}" in " ".join(r.output.split())


@pytest.mark.skipif(not os.path.exists("/dev/full") or not os.path.exists("/dev/null"),
                    reason="needs /dev/full and /dev/null (Linux)")
def test_cli_evaluate_writes_into_dev_null_as_it_is_and_says_one_line_on_a_full_disk():
    before = os.stat("/dev/null")
    r = _evaluate_cli("--summary", "/dev/null")
    assert r.exit_code == 0, r.output
    after = os.stat("/dev/null")  # still the device, not a regular file renamed over it
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    full = _evaluate_cli("--summary", "/dev/full")
    assert full.exit_code == 2
    assert "error: cannot write /dev/full: No space left on device" in " ".join(full.output.split())
    assert "Traceback" not in full.output


# --------------------------------------------------------------------------- real data

# Reference numbers: CRUXEval's own harness (facebookresearch/cruxeval, evaluation/
# evaluate_generations.py + utils_general.py + utils_execute.py, commit 10d71b4) run on these
# two files, printed with full precision (percentages).
CRUXEVAL_REFERENCE = {
    "output": (34.212500000000006, 40.286706349206355),
    "input": (35.94999999999998, 44.991071428571416),
}


@needs_shared("predictions")
def test_cruxeval_native_generations_match_the_harness():
    rows = load_rows(SHARED / "cruxeval" / "cruxeval.jsonl")
    assert len(rows) == 800  # CRUXEval has 800 programs (Gu et al. 2024): a documented property of the data set
    # 4 workers on any machine: the 3 s timeouts of looping predictions then overlap
    with Sandbox(Limits(timeout=3.0, recursion_limit=1000, output=16 << 20), workers=4) as sb:
        for mode, (ref1, ref5) in CRUXEVAL_REFERENCE.items():
            [ps] = load_predictions(SHARED / "predictions" / f"cruxeval-native-codellama-7b_temp0.2_{mode}.json")
            res = evaluate_dataset(rows, ps, mode=mode, ks=(1, 5), sandbox=sb, n_resamples=10)
            assert len(res.rows) == 800 and all(s.n == 10 for s in res.rows)
            assert round(100 * res.pass_at_k[1], 4) == round(ref1, 4), mode
            assert round(100 * res.pass_at_k[5], 4) == round(ref5, 4), mode


# ExeRScope's published exact-match accuracies on CRUXEval (Experiment_Results/result_stat/ER/
# overall_results.json in Intelligent-CAT-Lab/ExeRScope), with the counts they imply.
EXERSCOPE_CRUXEVAL = {
    "deepseek-coder-33b-instruct": ("0.5887", 471, 800),
    "gemini-1.5-pro": ("0.7187", 511, 711),
    "semcoder_s": ("0.5288", 423, 800),
    "starcoder2-15b": ("0.5150", 412, 800),
}


@needs_shared("codemind-layout")
def test_codemind_layout_exact_match_reproduces_exerscope():
    layout = SHARED / "codemind-layout"
    results = evaluate_paths(layout / "dataset" / "cruxeval", layout, bench="cruxeval", match="exact")
    got = {r.model: ("%.4f" % r.accuracy, sum(s.c for s in r.rows), len(r.rows)) for r in results}
    assert got == EXERSCOPE_CRUXEVAL


@needs_shared("codemind-layout")
def test_codemind_layout_execution_scores_all_models(sandbox, tmp_path):
    layout = SHARED / "codemind-layout"
    rows = [r for r in load_rows(layout / "dataset" / "cruxeval") if int(r.id.split("_")[1]) in {*range(60), 145}]
    sets = load_predictions(layout, bench="cruxeval")
    results = {r.model: r for r in evaluate_many(rows, sets, sandbox=sandbox)}
    assert sorted(results) == sorted(EXERSCOPE_CRUXEVAL)
    for r in results.values():
        assert r.rows and all(s.n == 1 for s in r.rows)
    d = {s.id: s for s in results["deepseek-coder-33b-instruct"].rows}
    # predicted '     ' for '           ': equal after ExeRScope's space removal, wrong by execution
    assert d["sample_4"].status == ["fail:AssertionError"]
    # predicted 8.50 for 8.5: a different string, the same value
    assert d["sample_145"].status == ["pass"]


def test_read_scores_separates_runs_of_one_model(tmp_path):
    rows = load_rows(FIX / "robustness_rows.jsonl")
    [ps] = load_predictions(FIX / "robustness_predictions.jsonl")
    a = evaluate_dataset(rows, ps, match="exact", n_resamples=10)
    b = evaluate_dataset(rows, ps, match="exact", mode="input", n_resamples=10)
    write_scores([a, b], tmp_path / "s.jsonl")
    back = read_scores(tmp_path / "s.jsonl")
    assert sorted(back) == ["toy (input, exact)", "toy (output, exact)"]
    assert [s.c for s in back["toy (output, exact)"]] == [s.c for s in a.rows]
    (tmp_path / "bad.jsonl").write_text('{"id": "x"}\n')
    with pytest.raises(InputError, match=r"bad.jsonl:1: not a scored row"):
        read_scores(tmp_path / "bad.jsonl")


# --------------------------------------------------------------------------- pass@k over the right rows

def _pass_at_k_rows_and_predictions():
    rows = [EvalRow(f"r{i}", "def f(s):\n    return s", "'x'", "'x'") for i in range(3)]
    preds = PredictionSet("m", {"r0": ["'x'", "'y'", "'y'", "'y'", "'y'"],  # 5 generations, 1 right
                                "r1": ["'y'"]})  # 1 generation, wrong; r2 has no prediction
    return rows, preds


def test_missing_rows_scored_wrong_count_zero_at_every_k():
    rows, preds = _pass_at_k_rows_and_predictions()
    res = evaluate_dataset(rows, preds, ks=(1, 5), match="exact", missing="wrong")
    assert [s.status for s in res.rows][2] == ["missing"]
    assert res.pass_at_k[1] == pytest.approx((1 / 5 + 0 + 0) / 3)
    # r0: pass@5 = 1 (5 of 5 drawn); r1 has too few generations; the missing r2 has none right: 0
    assert res.pass_at_k[5] == pytest.approx((1.0 + 0.0) / 2)
    assert res.pass_at_k_rows == {1: 3, 5: 2}
    skipped = evaluate_dataset(rows, preds, ks=(1, 5), match="exact", missing="skip")
    assert skipped.pass_at_k[5] == 1.0 and skipped.pass_at_k_rows == {1: 2, 5: 1}



def test_pass_at_k_over_fewer_rows_than_scored_is_warned_and_marked_in_the_table(tmp_path):
    from typer.testing import CliRunner

    from codemorph.cli.main import app

    rows, preds = _pass_at_k_rows_and_predictions()
    res = evaluate_dataset(rows, preds, ks=(1, 5), match="exact")
    assert [w for w in res.warnings if w.startswith("pass@5")] == [
        "pass@5 is over 1 of the 2 scored rows: the other 1 have fewer than 5 generations and are left out "
        "(the estimator needs n >= k; CRUXEval's harness would count each as solved)"]
    assert not [w for w in res.warnings if w.startswith("pass@1")]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps({"id": r.id, "code": r.code, "input": r.input, "output": r.output}) + "\n"
                            for r in rows))
    pred = tmp_path / "p.jsonl"
    pred.write_text("".join(json.dumps({"id": i, "prediction": g}) + "\n" for i, g in preds.predictions.items()))
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(pred), "--match", "exact"])
    assert r.exit_code == 0, r.output
    assert "100.00 (1/2 rows)" in r.output
    assert "warning: pass@5 is over 1 of the 2 scored rows" in " ".join(r.output.split())


def test_a_check_program_that_prints_past_the_sandboxs_output_limit_scores_its_assertion_as_the_harness_does():
    # CRUXEval's harness sends the check program's standard output and error to a StringIO it never reads:
    # 17 MiB printed do not decide anything (they were `output-limit`, wrong, at the sandbox's 16 MiB)
    big = EvalRow("big", "def f(x):\n    print('a' * (17 << 20))\n    return x + 1", "1", "2")
    lines = EvalRow("lines", "import sys\ndef f(x):\n    for _ in range(300_000):\n        sys.stderr.write('b' * 63)\n"
                             "    return x + 1", "1", "2")
    raises = EvalRow("raises", "def f(x):\n    print('a' * (17 << 20))\n    return [][x]", "1", None,
                     exception_type="IndexError")
    future = EvalRow("future", "from __future__ import annotations\ndef f(x: int):\n    print('a' * (17 << 20))\n"
                               "    return x + 1", "1", "2")
    fd = EvalRow("fd", "import os\ndef f(x):\n    os.write(1, b'a' * (17 << 20))\n    return x + 1", "1", "2")
    preds = {"big": ["f(1)", "f(2)"], "lines": ["f(1)"], "raises": ["f(1)", "f([][0])"], "future": ["f(1)"],
             "fd": ["f(1)"]}
    res = evaluate_dataset([big, lines, raises, future, fd], PredictionSet("m", preds), mode="input", ks=(1,))
    assert {s.id: s.status for s in res.rows} == {
        "big": ["pass", "fail:AssertionError"], "lines": ["pass"],
        "raises": ["raised:IndexError", "answer-raised:IndexError"], "future": ["pass"],
        "fd": ["output-limit"]}  # written to the file descriptor itself: still the sandbox's limit, and said
    assert res.accuracy == (0.5 + 1 + 0.5 + 1 + 0) / 5
    assert any(w.startswith("1 generations were stopped at the sandbox's output limit") and "['fd']" in w
               for w in res.warnings)


def test_swallow_output_puts_one_line_before_the_program_or_after_its_future_imports():
    assert swallow_output("def f(x):\n    return x\nassert 1 == f(1)") == (
        f"{SWALLOW_LINE}\ndef f(x):\n    return x\nassert 1 == f(1)")
    assert swallow_output('"""doc"""\nfrom __future__ import annotations\ndef f(x):\n    return x') == (
        f'"""doc"""\nfrom __future__ import annotations\n{SWALLOW_LINE}\ndef f(x):\n    return x')


@pytest.mark.parametrize("strict", [False, True])
def test_an_answer_whose_eq_is_always_true_is_right_for_any_output_as_in_the_harness(strict):
    # `assert 2 == A()`: int.__eq__ gives NotImplemented, so Python asks the answer's __eq__ (True): the
    # harness's assertion passes, and so does codemorph's, --strict included (the protocol is Python's ==)
    row = EvalRow("r", "def f(x):\n    return x + 1", "1", "2")
    gens = ["type('A', (), {'__eq__': lambda s, o: True})()", "__import__('unittest.mock').mock.ANY", "3"]
    res = evaluate_dataset([row], PredictionSet("m", {"r": gens}), ks=(1,), strict=strict)
    assert res.rows[0].status == ["pass", "pass", "fail:AssertionError"]


def test_exception_rows_written_to_the_codemind_layout_are_read_back_as_exception_rows(tmp_path):
    # write_codemind_row writes an exception row's output.txt as `raises T`; read back, it was an ordinary
    # row whose output was that text: `assert raises IndexError == ...` (SyntaxError) made every answer wrong
    from codemorph.rows.codemind import write_codemind_row

    write_codemind_row(tmp_path, {"id": "sample_1", "code": "def f(xs):\n    return xs[0]", "input": "[]",
                                  "output": None, "exception": {"type": "IndexError"}}, bench="cruxeval")
    write_codemind_row(tmp_path, {"id": "p1", "code": "x = input()\nprint([][int(x)])", "input": "1\n",
                                  "input_kind": "stdin", "output": None, "exception": {"type": "IndexError"}},
                       bench="Avatar")
    rows = read_codemind_dataset(tmp_path)
    assert [(r.id, r.output, r.exception_type, r.input_kind) for r in rows] == [
        ("Avatar/p1", None, "IndexError", "stdin"), ("cruxeval/sample_1", None, "IndexError", "args")]
    out = evaluate_dataset(rows, PredictionSet("m", {"Avatar/p1": ["raises IndexError", "IndexError: x", "1"],
                                                     "cruxeval/sample_1": ["raises IndexError", "'raises IndexError'"]}),
                           ks=(1,))
    assert [s.status for s in out.rows] == [["names-exception", "names-exception", "no-match"],
                                            ["names-exception", "no-match"]]
    inp = evaluate_dataset(rows, PredictionSet("m", {"Avatar/p1": ["0\n", "x\n"], "cruxeval/sample_1": ["f([])", "f([1])"]}),
                           mode="input", ks=(1,))
    assert [s.status for s in inp.rows] == [["raised:IndexError", "raised:ValueError"], ["raised:IndexError", "returned"]]
    assert inp.accuracy == 0.5


def test_a_predicted_standard_input_without_a_final_line_end_is_read_as_input_txt_is():
    # predict.txt is stripped: "abc" must run as the data set's input "abc\n" does (readline()[:-1] gave "ab")
    row = EvalRow("r", "import sys\ns = sys.stdin.readline()[:-1]\nprint(s)", "abc\n", "abc\n", input_kind="stdin")
    res = evaluate_dataset([row], PredictionSet("m", {"r": ["abc", "abc\n", "abc\r\n", "ab"]}), mode="input", ks=(1,))
    assert res.rows[0].status == ["stdout-match", "stdout-match", "stdout-match", "stdout-differs"]


def test_a_call_input_of_statements_ending_with_an_expression_is_scored_on_that_expression():
    # perturb writes a harness method with other literals as `class Test(Test): ...` then the call; the check
    # was `assert class Test(Test): ... == 4`, a SyntaxError, so every output answer was wrong
    code = "class Test:\n    def test(self):\n        return len([1, 2, 3])\n"
    row = EvalRow("t:perturbation", code, "class Test(Test):\n    def test(self):\n        return len([1, 2, 3, 4])\n"
                  "Test().test()", "4", entry_point="Test", input_kind="call")
    commented = EvalRow("c", "def g(x):\n    return x * 2", "g(2)  # the harness's call", "4", entry_point="g",
                        input_kind="call")
    res = evaluate_dataset([row, commented], PredictionSet("m", {"t:perturbation": ["4", "3"], "c": ["4", "5"]}),
                           ks=(1,))
    assert [s.status for s in res.rows] == [["pass", "fail:AssertionError"], ["pass", "fail:AssertionError"]]
    assert check_program(row, "4", "output") == (
        code + "\nclass Test(Test):\n    def test(self):\n        return len([1, 2, 3, 4])\nassert (\nTest().test()\n) == 4")


def test_an_expected_output_with_a_comment_or_a_line_end_is_compared_whole():
    # `assert 4  # four == 5` was `assert 4` (every answer right); `assert 4\n == 5` an IndentationError (every
    # answer wrong); a '#' inside a string is no comment and the harness's text is kept
    rows = [EvalRow("c", "def f(x):\n    return x * 2", "2", "4  # four"),
            EvalRow("n", "def f(x):\n    return x * 2", "2", "4\n"),
            EvalRow("s", "def f(x):\n    return x + '#'", "'a'", "'a#'")]
    res = evaluate_dataset(rows, PredictionSet("m", {"c": ["4", "5"], "n": ["4", "5"], "s": ["'a#'", "'a'"]}), ks=(1,))
    assert [s.status for s in res.rows] == [["pass", "fail:AssertionError"]] * 3
    assert check_program(rows[2], "'a#'", "output") == "def f(x):\n    return x + '#'\nassert 'a#' == 'a#'"


def test_exact_match_on_exception_rows_compares_the_recorded_text_or_the_call(tmp_path):
    # a layout's exception row records `raises T`: --match exact compares with it as ExeRScope compares text; a
    # JSON Lines exception row has no recorded text (the naming rule); input mode compares the call (it used the
    # naming rule, so every input answer was wrong)
    from codemorph.rows.codemind import write_codemind_row

    write_codemind_row(tmp_path, {"id": "sample_1", "code": "def f(xs):\n    return xs[0]", "input": "[]",
                                  "output": None, "exception": {"type": "IndexError"}}, bench="cruxeval")
    rows = read_codemind_dataset(tmp_path / "cruxeval") + [
        EvalRow("j", "def f(xs):\n    return xs[0]", "[]", None, exception_type="IndexError")]
    out = ["raises IndexError", "IndexError", "raises  IndexError"]
    res = evaluate_dataset(rows, PredictionSet("m", {"sample_1": out, "j": out}), ks=(1,), match="exact")
    assert [s.status for s in res.rows] == [["exact", "no-match", "exact"], ["names-exception"] * 3]
    inp = ["f([])", "f( [] )", "f([1])"]
    res = evaluate_dataset(rows, PredictionSet("m", {"sample_1": inp, "j": inp}), ks=(1,), match="exact", mode="input")
    assert [s.status for s in res.rows] == [["exact", "exact", "no-match"]] * 2


def test_swallow_output_keeps_the_programs_docstring_first():
    assert swallow_output('"""Doc."""\ndef f(x):\n    return x\nassert f.__module__ and __doc__ == "Doc."') == (
        f'"""Doc."""\n{SWALLOW_LINE}\ndef f(x):\n    return x\nassert f.__module__ and __doc__ == "Doc."')


def test_a_row_expecting_a_bare_inf_is_scored_as_the_harness_scores_it_and_named_in_a_warning():
    # repr(float('inf')) is `inf`: `assert inf == ...` raises NameError whatever the answer, in the harness too
    rows = [EvalRow("i", "def f(x):\n    return x * 1e400", "1", "inf"),
            EvalRow("d", "inf = float('inf')\ndef f(x):\n    return x * 1e400", "1", "inf")]
    res = evaluate_dataset(rows, PredictionSet("m", {"i": ["float('inf')"], "d": ["float('inf')"]}), ks=(1,))
    assert [s.status for s in res.rows] == [["fail:NameError"], ["pass"]]
    assert any(w.startswith("1 rows expect an output that names `inf` or `nan`") and "['i']" in w for w in res.warnings)
