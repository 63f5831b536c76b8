"""A row whose own program fails in this environment although the data set records an output
(ClassEval_51 calls ``np.mat``, which numpy 2 removed) is left out of every figure with a
warning naming it, not scored wrong for every model."""

from __future__ import annotations

import pytest

from codemorph.scoring.evaluate import evaluate_many, evaluate_paths, reference_program
from codemorph.scoring.predictions import EvalRow, PredictionSet
from paths import needs_shared, shared

GOOD = EvalRow("good", "def f(x):\n    return x + 1\n", "1", "2")
#: the recorded output says 2, but the attribute the program needs is gone here
GONE = EvalRow("gone", "import math\ndef f(x):\n    return math.no_such_function(x)\n", "1", "2")
CALL_GONE = EvalRow("call_gone", "import math\nclass T:\n    def t(self):\n        return math.no_such_function(1)\n",
                    "T().t()", "2", input_kind="call")
#: the program runs but gives another value than recorded (f(1) is 3, recorded 2): never
#: left out, its answers are judged as the harness judges them
OTHER = EvalRow("other", "def f(x):\n    return x + 2\n", "1", "2")
ROWS = [GOOD, GONE, CALL_GONE, OTHER]


def test_reference_program_is_the_code_then_the_call():
    assert reference_program(GONE) == GONE.code + "\nf(\n1\n)"
    assert reference_program(CALL_GONE) == CALL_GONE.code + "\nT().t()"


def test_rows_whose_own_program_raises_are_left_out_for_every_model_with_a_warning():
    sets = [PredictionSet("m1", {"good": ["2"], "gone": ["2"], "call_gone": ["2"], "other": ["2"]}),
            PredictionSet("m2", {"good": ["3"], "gone": ["7"], "call_gone": ["2"], "other": ["3"]})]
    results = evaluate_many(ROWS, sets, ks=[1], workers=1, n_resamples=10)
    for r in results:
        assert r.unrunnable == {"call_gone": "fail:AttributeError"}
        assert [s.id for s in r.rows] == ["good", "gone", "other"]
        assert r.missing == []
        assert r.summary()["rows_unrunnable"] == 1
        assert ("1 row left out of every figure: the data set records an output, but the row's own program "
                "fails here, so no answer can be right: call_gone (fail:AttributeError) (summary: "
                "'unrunnable')") in r.warnings
    m1, m2 = results
    # an args row in output mode compares the recorded output with the answer, as CRUXEval's
    # harness does: its program is not run, so it is scored
    assert [(s.id, s.status) for s in m1.rows] == [("good", ["pass"]), ("gone", ["pass"]),
                                                   ("other", ["pass"])]
    assert [(s.id, s.status) for s in m2.rows] == [("good", ["fail:AssertionError"]), ("gone", ["fail:AssertionError"]),
                                                   ("other", ["fail:AssertionError"])]


def test_an_args_row_in_output_mode_is_never_left_out_whatever_its_answers_raise():
    # the check is `assert 2 == <answer>`: the program is not called, a right answer is right
    sets = [PredictionSet("m", {"gone": ["no_such_name", "2"]})]
    [r] = evaluate_many([GONE], sets, ks=[1], workers=1, n_resamples=10)
    assert r.unrunnable == {}
    assert [(s.id, s.status) for s in r.rows] == [("gone", ["fail:NameError", "pass"])]
    [r] = evaluate_many([GONE], [PredictionSet("m", {"gone": ["no_such_name"]})], ks=[1], workers=1)
    assert r.unrunnable == {}
    assert [(s.id, s.status) for s in r.rows] == [("gone", ["fail:NameError"])]


def test_in_input_mode_an_args_row_whose_program_raises_is_left_out():
    sets = [PredictionSet("m", {"good": ["f(1)"], "gone": ["f(1)"], "other": ["f(0)"]})]
    [r] = evaluate_many([GOOD, GONE, OTHER], sets, mode="input", ks=[1], workers=1, n_resamples=10)
    assert r.unrunnable == {"gone": "fail:AttributeError"}
    assert [(s.id, s.status) for s in r.rows] == [("good", ["pass"]), ("other", ["pass"])]
    assert r.accuracy == 1.0


def test_an_answer_that_raises_on_a_runnable_row_stays_a_wrong_answer():
    results = evaluate_many([GOOD], [PredictionSet("m", {"good": ["1 / 0"]})], ks=[1], workers=1)
    assert results[0].unrunnable == {}
    assert [(s.id, s.status) for s in results[0].rows] == [("good", ["fail:ZeroDivisionError"])]
    assert results[0].accuracy == 0.0


def test_exact_match_runs_nothing_and_keeps_every_row():
    results = evaluate_many([GOOD, GONE], [PredictionSet("m", {"good": ["2"], "gone": ["2"]})], ks=[1],
                            match="exact")
    assert results[0].unrunnable == {}
    assert [(s.id, s.correct) for s in results[0].rows] == [("good", [True]), ("gone", [True])]


@needs_shared("codemind-layout", "dataset", "classeval")
def test_classeval_51_is_left_out_of_execution_scoring_on_the_shared_layout():
    layout = shared("codemind-layout")
    results = evaluate_paths(layout / "dataset" / "classeval", layout / "Experiment_Results", bench="classeval",
                             match="execution", workers=2, ks=[1])
    got = {r.model: (sum(s.c for s in r.rows), len(r.rows)) for r in results}
    assert got == {"deepseek-coder-33b-instruct": (15, 19), "gemini-1.5-pro": (17, 19), "semcoder_s": (11, 19),
                   "starcoder2-15b": (11, 19)}
    assert all(r.unrunnable == {"ClassEval_51@KappaCalculator.kappa": "fail:AttributeError"} for r in results)
