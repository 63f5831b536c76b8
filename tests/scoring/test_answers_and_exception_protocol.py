"""Answer extraction for base, chat and reasoning models, the exception-answer protocol (prompts,
parsing, per-class precision/recall/F1 and confusion matrix) and evaluate's warnings."""

from __future__ import annotations

import json

import pytest

from codemorph.harness.prompts import build_prompt, exception_classes, resolve_exceptions
from codemorph.scoring.evaluate import evaluate_dataset, evaluate_many, trivially_true, write_summary
from codemorph.scoring.metrics import NO_EXCEPTION, exception_confusion
from codemorph.scoring.predictions import (EvalRow, PredictionSet, extract_answer, load_predictions,
                                           predicted_exception)

RET = EvalRow("r", "def f(x):\n    return x + 1", "2", "3")
RAISE = EvalRow("k", "def f(d):\n    return d['a']", "{}", None, exception_type="KeyError")


# --------------------------------------------------------------------------- extraction

@pytest.mark.parametrize("text, mode, answer, status", [
    ("assert f(2) == 3\n", "output", "3", "assertion"),                          # CRUXEval direct completion
    ("Step 1 ...\n[/THOUGHT]\n[ANSWER]\nassert f(2) == 'a b'\n", "output", "'a b'", "tags"),
    ("[ANSWER]assert f(2) == [1, 2][/ANSWER] trailing", "output", "[1, 2]", "tags"),
    ("<think>so f(2) == 4?</think>\n[ANSWER]\nassert f(2) == 3\n[/ANSWER]", "output", "3", "tags"),
    ("Sure!\n```python\nprint(1)\n```\nso:\n```python\nassert f(2) == {'a': 1}\n```", "output", "{'a': 1}", "fence"),
    ("assert f(2) == 3\nassert f(2) == 4\n", "output", "3", "assertion"),
    ("[ANSWER]\nassert f('ab') == 'ba'\n[/ANSWER]", "input", "f('ab')", "tags"),
    ("assert f(??) == 1\n".replace("??", "[0]"), "input", "f([0])", "assertion"),
    ("'a==b'", "output", "'a==b'", "bare"),
    ("assert f('a==b') == 'x'  # done", "output", "'x'", "assertion"),
    ("assert f('a==b') == 'x'", "input", "f('a==b')", "assertion"),
    ("assert f(2) == 1 or True", "output", "1 or True", "assertion"),  # as CRUXEval: --strict catches it
    ("[ANSWER]\nassert f([]) raises IndexError\n[/ANSWER]", "output", "raises IndexError", "tags"),
    ("[ANSWER]\nassert f({}) raises KeyError\n[/ANSWER]", "input", "f({})", "tags"),
])
def test_extract_answer_finds_the_answer(text, mode, answer, status):
    a = extract_answer(text, mode)
    assert (a.text, a.status) == (answer, status) and a.parsable


@pytest.mark.parametrize("text, why", [
    ("<think>f(2) is 3 because", "unparsable:unclosed-think"),
    ("", "unparsable:empty"),
    ("[ANSWER]\n\n[/ANSWER]", "unparsable:empty"),
    ("I cannot tell what this returns.", "unparsable:no-answer"),
])
def test_extract_answer_reports_unparsable_generations(text, why):
    a = extract_answer(text, "output")
    assert a.status == why and a.text == "" and not a.parsable


def test_extract_answer_counts_several_assertions():
    assert extract_answer("assert f(1) == 2\nassert f(2) == 3\nassert f(3) == 4", "output").assertions == 3


def test_harness_log_reader_counts_unparsable_generations_and_evaluate_warns(tmp_path):
    p = tmp_path / "samples_codemorph_output_2026-01-01T00-00-00.jsonl"
    line = {"doc_id": 0, "doc": {"id": "r"}, "resps": [["assert f(2) == 3\n", "<think>hmm", "assert f(2) == 4\n"]]}
    p.write_text(json.dumps(line) + "\n")
    [ps] = load_predictions(p)
    assert ps.format == "lm-eval" and ps.mode == "output" and ps.unparsable == 1
    assert ps.predictions == {"r": ["3", "", "4"]}
    res = evaluate_dataset([RET], ps, match="exact")
    assert res.unparsable == 1 and res.rows[0].correct == [True, False, False]
    assert any("1 of 3 generations have no answer" in w and "unclosed-think 1" in w for w in res.warnings)


# --------------------------------------------------------------------------- exception protocol

@pytest.mark.parametrize("answer, cls", [
    ("raises KeyError", "KeyError"), ("assert f({}) raises builtins.KeyError", "KeyError"),
    ("raise ValueError('bad')", "ValueError"), ("ZeroDivisionError()", "ZeroDivisionError"),
    ("Traceback (most recent call last):\n  File \"<stdin>\", line 2, in f\nKeyError: 'a'", "KeyError"),
    ("IndexError: list index out of range", "IndexError"), ("StopIteration", "StopIteration"),
    ("'KeyError'", None), ("[1, 2]", None), ("f(1)", None), ("None", None), ("Error handling", None),
])
def test_predicted_exception_reads_the_class_an_answer_names(answer, cls):
    assert predicted_exception(answer) == cls


def test_exception_answers_are_right_exactly_when_they_name_the_raised_class_and_the_summary_has_the_matrix(tmp_path):
    answers = {"k": ["raises KeyError", "KeyError('a')", "raise KeyError", "Traceback (most recent call last):\nKeyError: 'a'",
                     "raises LookupError", "'KeyError'", "None"],
               "r": ["3", "raises ValueError"]}
    res = evaluate_dataset([RAISE, RET], PredictionSet("m", answers), match="exact")
    assert [s.correct for s in res.rows] == [[True, True, True, True, False, False, False], [True, False]]
    conf = res.exception_confusion
    assert conf["labels"] == ["KeyError", "LookupError", "ValueError", NO_EXCEPTION]
    assert conf["matrix"]["KeyError"] == {"KeyError": 4, "LookupError": 1, "ValueError": 0, NO_EXCEPTION: 2}
    assert conf["matrix"][NO_EXCEPTION] == {"KeyError": 0, "LookupError": 0, "ValueError": 1, NO_EXCEPTION: 1}
    assert conf["false_exceptions"] == 1 and conf["missed_exceptions"] == 2
    k = conf["classes"]["KeyError"]
    assert (k["precision"], k["recall"], k["support"]) == (1.0, pytest.approx(4 / 7), 7)
    assert k["f1"] == pytest.approx(2 * (4 / 7) / (1 + 4 / 7))
    assert conf["classes"]["ValueError"] == {"precision": 0.0, "recall": None, "f1": None, "support": 0, "predicted": 1}
    write_summary([res], tmp_path / "s.json")
    assert json.loads((tmp_path / "s.json").read_text())[0]["exception_confusion"] == conf


def test_exception_confusion_by_hand():
    conf = exception_confusion([("IndexError", "IndexError"), ("IndexError", None), (None, "IndexError"), (None, None)])
    c = conf["classes"]["IndexError"]
    assert (c["precision"], c["recall"], c["f1"]) == (0.5, 0.5, 0.5)


def test_exception_prompt_options():
    plain = build_prompt(RET, "output")
    may = build_prompt(RET, "output", exceptions="may-raise")
    listed = build_prompt(RET, "output", exceptions="class-list", classes=exception_classes([RAISE]))
    assert "raises" not in plain and plain.endswith("assert f(2) == ??\n[/PYTHON]\n[ANSWER]\n")
    head, _, rest = may.partition("\n\n")
    assert head.endswith("as in `assert f([]) raises IndexError`.") and rest == plain.partition("\n\n")[2]
    assert "choose from are: AttributeError, IndexError, KeyError, TypeError, ValueError, ZeroDivisionError." in listed
    cot_input = build_prompt(RAISE, "input", cot=True, exceptions="may-raise")
    assert cot_input.endswith("assert f(??) raises KeyError\n[/PYTHON]\n[THOUGHT]\n")
    with pytest.raises(ValueError, match="input prediction needs exceptions"):
        build_prompt(RAISE, "input")
    assert resolve_exceptions("auto", [RET]) == "off" and resolve_exceptions("auto", [RET, RAISE]) == "may-raise"


# --------------------------------------------------------------------------- warnings

def test_trivially_true_predictions_are_counted_and_point_to_strict(sandbox):
    assert trivially_true(RET, "None or True") and trivially_true(RET, "4 if False else 3")
    assert not trivially_true(RET, "3") and not trivially_true(RET, "(None or True)")
    preds = PredictionSet("m", {"r": ["None or True", "3", "4"]})
    loose = evaluate_dataset([RET], preds, sandbox=sandbox)
    assert loose.rows[0].correct == [True, True, False] and loose.trivially_true == 1
    assert any("1 generations" in w and "--strict" in w for w in loose.warnings)
    strict = evaluate_dataset([RET], preds, sandbox=sandbox, strict=True)
    assert strict.rows[0].correct == [False, True, False]
    assert not any("--strict" in w for w in strict.warnings)


def test_mode_the_predictions_contradict_is_warned_about():
    out = evaluate_dataset([RET], PredictionSet("m", {"r": ["f(2)", "f(3)"]}), match="exact")
    assert any("use --mode input" in w for w in out.warnings)
    inp = evaluate_dataset([RET], PredictionSet("m", {"r": ["3"]}), mode="input", match="exact")
    assert any("use --mode output" in w for w in inp.warnings)
    fine = evaluate_dataset([RET], PredictionSet("m", {"r": ["3"]}), match="exact")
    assert fine.warnings == []
    logged = evaluate_dataset([RET], PredictionSet("m", {"r": ["3"]}, mode="input"), match="exact")
    assert any("made for input prediction" in w for w in logged.warnings)


def test_models_scored_on_different_row_sets_are_shown_apart():
    rows = [RET, EvalRow("s", "def f(x):\n    return x", "1", "1")]
    a = PredictionSet("a", {"r": ["3"], "s": ["1"]})
    b = PredictionSet("b", {"r": ["3"]})
    ra, rb = evaluate_many(rows, [a, b], match="exact")
    assert any(w.startswith("row set A: scored on 2 rows") and "1 rows in common" in w for w in ra.warnings)
    assert any(w.startswith("row set B: scored on 1 rows") for w in rb.warnings)
    same = evaluate_many(rows, [a, PredictionSet("c", {"r": ["4"], "s": ["1"]})], match="exact")
    assert all(r.warnings == [] for r in same)


def test_input_prediction_of_an_exception_row_is_right_only_when_the_program_raises_not_the_answer(sandbox):
    # f([]) raises IndexError inside f; f([][0]) raises it while evaluating its own argument, before f runs
    row = EvalRow("r", "def f(xs):\n    return xs[0]", "[]", None, exception_type="IndexError")
    gens = ["f([])", "f([][0])", "f(xs=[][0])", "[][0] or f([])", "f((lambda: [][0])())", "f(f([]))", "f([1])"]
    res = evaluate_dataset([row], PredictionSet("m", {"r": gens}), mode="input", ks=(1,), sandbox=sandbox)
    assert res.rows[0].status == ["raised:IndexError", "answer-raised:IndexError", "answer-raised:IndexError",
                                  "answer-raised:IndexError", "answer-raised:IndexError", "raised:IndexError",
                                  "returned"]
    assert res.rows[0].correct == [True, False, False, False, False, True, False]


def test_strict_refuses_answers_that_call_the_function_in_output_mode_or_are_not_one_call_in_input_mode(sandbox):
    row = EvalRow("r", "def f(x):\n    return x + 1", "2", "3")
    out = ["3", "f( 2)", "f(2.0)", "[f(1 + 1)][0]", "f(2) # 3"]
    loose = evaluate_dataset([row], PredictionSet("m", {"r": out}), ks=(1,), sandbox=sandbox)
    # CRUXEval's harness refuses only the text f(2) itself: a respaced or recomputed call passes
    assert loose.rows[0].correct == [True, True, True, True, False]
    assert loose.rows[0].status[4] == "skip:call-in-output"
    strict = evaluate_dataset([row], PredictionSet("m", {"r": out}), ks=(1,), sandbox=sandbox, strict=True)
    assert strict.rows[0].correct == [True, False, False, False, False]
    assert strict.rows[0].status[1:] == ["skip:call-in-output"] * 4
    inp = ["f(2)", "f(2)  # the input", "f(*[2])", "(f(0), f(2))[1]", "f(f(1))", "f(2) and f(2)", "g(2)"]
    loose = evaluate_dataset([row], PredictionSet("m", {"r": inp}), mode="input", ks=(1,), sandbox=sandbox)
    assert loose.rows[0].correct == [True, True, True, True, True, True, False]
    strict = evaluate_dataset([row], PredictionSet("m", {"r": inp}), mode="input", ks=(1,), sandbox=sandbox,
                              strict=True)
    assert strict.rows[0].correct == [True, True, True, False, False, False, False]
    assert strict.rows[0].status[3:] == ["not-one-call", "not-one-call", "not-one-call", "skip:no-call"]


def test_rows_whose_expected_value_holds_nan_are_warned_about_as_unanswerable(sandbox):
    nan = EvalRow("nan", "def f(x):\n    return float(x)", "'nan'", "float('nan')")
    nested = EvalRow("nested", "def f(x):\n    return [float(x), 1.0]", "'nan'", "[float('nan'), 1.0]")
    preds = PredictionSet("m", {"nan": ["float('nan')", "nan"], "nested": ["[float('nan'), 1.0]"],
                                "r": ["3"]})
    res = evaluate_dataset([nan, nested, RET], preds, ks=(1,), sandbox=sandbox)
    # NaN compares unequal to itself: the right answer fails CRUXEval's assertion
    assert [s.correct for s in res.rows] == [[False, False], [False], [True]]
    assert [w for w in res.warnings if "NaN" in w] == [
        "2 rows expect a value holding NaN, which compares unequal to every answer under the assertion "
        "(`assert float('nan') == float('nan')` fails): no generation can be right on them, e.g. ['nan', 'nested']"]


def test_hostile_predictions_run_only_in_the_sandbox_and_score_wrong(tmp_path):
    from codemorph.sandbox.pool import Limits, Sandbox

    row = EvalRow("r", "def f(x):\n    return x", "1", "1")
    target = tmp_path / "written-by-a-prediction"
    gens = [f"__import__('pathlib').Path({str(target)!r}).write_text('x') and 1",  # a file outside the sandbox
            "__import__('os')._exit(0)", "__import__('sys').exit(0)", "1\nraise SystemExit(0)",
            "10 ** 10 ** 10", "'a' * 10 ** 12",
            # print() goes to a StringIO, as in the harness; bytes written to the descriptor meet the limit
            "__import__('os').write(1, b'x' * (2 << 20)) or 1", "1"]
    with Sandbox(Limits(timeout=1.0, recursion_limit=1000, output=1 << 20), workers=2) as sb:
        res = evaluate_dataset([row], PredictionSet("m", {"r": gens}), ks=(1,), sandbox=sb)
    assert res.rows[0].correct == [False] * 7 + [True]
    assert res.rows[0].status == ["refused", "crashed", "fail:SystemExit", "fail:SystemExit", "timeout",
                                  "memory", "output-limit", "pass"]
    assert not target.exists()


def test_an_exception_raised_by_the_programs_helper_before_the_call_is_the_answers(sandbox):
    # f(helper([])) raises IndexError in the program's own helper while its argument is
    # evaluated: f never runs, as with f([][0]); the innermost line is the program's, so the
    # line rule alone scored it right.  Every answer that reaches f stays right: through a
    # decorator's wrapper, a lambda given to sorted, a chained exception, a class, a
    # comprehension, a standard-library module, a functools.partial.
    rows = [
        EvalRow("h", "def helper(x):\n    return x[0]\n\ndef f(xs):\n    return helper(xs)", "[]", None,
                exception_type="IndexError"),
        EvalRow("c", "class A:\n    def __init__(self, v):\n        self.v = v\n    def get(self):\n"
                "        return self.v[0]\n\ndef f(xs):\n    return A(xs).get()", "[]", None, exception_type="IndexError"),
        EvalRow("d", "def deco(fn):\n    def wrapper(*a):\n        if not a[0]:\n            raise ValueError('empty')\n"
                "        return fn(*a)\n    return wrapper\n\n@deco\ndef f(xs):\n    return xs[0]", "[]", None,
                exception_type="ValueError"),
        EvalRow("s", "def f(xs):\n    return sorted(xs, key=lambda x: x[0])", "[[], [1]]", None,
                exception_type="IndexError"),
        EvalRow("r", "def f(xs):\n    try:\n        return xs[0]\n    except IndexError as e:\n"
                "        raise ValueError('empty') from e", "[]", None, exception_type="ValueError"),
        EvalRow("m", "import statistics\ndef f(xs):\n    return statistics.mean(xs)", "[]", None,
                exception_type="StatisticsError"),
        EvalRow("p", "import functools\ndef g(k, xs):\n    return xs[k]\n\nf = functools.partial(g, 0)", "[]", None,
                exception_type="IndexError"),
    ]
    preds = {"h": ["f([])", "f(helper([]))", "f([1]) + helper([])"], "c": ["f([])", "f(A([]).get())"],
             "d": ["f([])"], "s": ["f([[], [1]])", "f([[]]) if f([[1]]) else 0"],
             "r": ["f(())"], "m": ["f([])", "f(statistics.mean([]))"],
             "p": ["f([])"]}
    res = evaluate_dataset(rows, PredictionSet("m", preds), mode="input", ks=(1,), sandbox=sandbox)
    got = {r.id: r.status for r in res.rows}
    assert got == {
        "h": ["raised:IndexError", "answer-raised:IndexError", "answer-raised:IndexError"],
        "c": ["raised:IndexError", "answer-raised:IndexError"],
        "d": ["raised:ValueError"],
        "s": ["raised:IndexError", "raised:IndexError"],
        "r": ["raised:ValueError"],
        "m": ["raised:StatisticsError", "answer-raised:StatisticsError"],
        "p": ["raised:IndexError"],
    }


@pytest.mark.parametrize("text, mode, answer", [
    ("'it raises KeyError'", "output", "'it raises KeyError'"),  # a str value that holds the word
    ("[ANSWER]\nassert f(1) == 'x raises KeyError'\n[/ANSWER]", "output", "'x raises KeyError'"),
    ("f('a raises B')", "input", "f('a raises B')"),
    ("This never raises KeyError", "output", ""),                # prose: no answer (it was `raises KeyError`)
    ("[ANSWER]\nassert f([]) raises IndexError('list index out of range')\n[/ANSWER]", "output", "raises IndexError"),
    ("[ANSWER]\nassert f({}) raises builtins.KeyError\n[/ANSWER]", "input", "f({})"),
])
def test_extract_answer_reads_raises_only_in_the_protocols_shape(text, mode, answer):
    assert extract_answer(text, mode).text == answer
