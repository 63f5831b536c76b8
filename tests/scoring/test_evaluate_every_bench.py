"""``codemorph evaluate`` on ExeRScope's four benches: ``--match exact`` gives ExeRScope's
published accuracies, and execution scoring judges every kind by running it (call rows:
``assert <input> == <prediction>``; stdin rows: the predicted text against the standard
output under the judge whitespace rule)."""

from __future__ import annotations

import ast

import pytest

from codemorph.rows.codemind import same_stdout
from codemorph.sandbox.kinds import request_for
from codemorph.scoring.evaluate import evaluate_many, evaluate_paths
from codemorph.scoring.predictions import load_predictions, load_rows
from paths import needs_shared, shared

#: ExeRScope's published accuracy (Intelligent-CAT-Lab/ExeRScope,
#: Experiment_Results/result_stat/ER/<model>_<bench>.json: its per-program verdicts of
#: analysis/parse_results.py), over the programs of the shared layout that have a prediction:
#: correct / scored.  cruxeval holds all 800 programs (gemini-1.5-pro answered 711), so these
#: are the overall figures of overall_results.json (0.5887, 0.7187, 0.5288, 0.5150).
PUBLISHED = {
    "cruxeval": {"deepseek-coder-33b-instruct": (471, 800), "gemini-1.5-pro": (511, 711),
                 "semcoder_s": (423, 800), "starcoder2-15b": (412, 800)},
    "humaneval": {"deepseek-coder-33b-instruct": (6, 8), "gemini-1.5-pro": (8, 8), "semcoder_s": (4, 8),
                  "starcoder2-15b": (4, 8)},
    "classeval": {"deepseek-coder-33b-instruct": (10, 20), "gemini-1.5-pro": (15, 20), "semcoder_s": (7, 20),
                  "starcoder2-15b": (10, 20)},
    "Avatar": {"deepseek-coder-33b-instruct": (10, 20), "gemini-1.5-pro": (10, 20), "semcoder_s": (6, 20),
               "starcoder2-15b": (6, 20)},
}


@needs_shared("codemind-layout", "dataset", "Avatar")
@pytest.mark.parametrize("bench", sorted(PUBLISHED))
def test_exact_match_gives_exerscope_published_accuracy(bench):
    layout = shared("codemind-layout")
    results = evaluate_paths(layout / "dataset" / bench, layout / "Experiment_Results", bench=bench, match="exact")
    got = {r.model: (sum(s.c for s in r.rows), len(r.rows)) for r in results}
    assert got == PUBLISHED[bench]


@needs_shared("codemind-layout", "dataset", "Avatar")
def test_a_whole_layout_scores_every_bench_at_once():
    layout = shared("codemind-layout")
    small = ("humaneval", "classeval", "Avatar")
    rows = [r for r in load_rows(layout) if r.id.split("/")[0] in small]
    sets = load_predictions(layout / "Experiment_Results")
    results = evaluate_many(rows, sets, match="exact")
    for r in results:
        assert sum(s.c for s in r.rows) == sum(PUBLISHED[b][r.model][0] for b in small)
        assert len(r.rows) == sum(PUBLISHED[b][r.model][1] for b in small)


_NO_VALUE = object()


def _compared_literal(pred: str):
    """The value ``assert X == <pred>`` compares ``X`` with, when ``pred`` is one literal
    that the assertion takes whole; else ``_NO_VALUE``."""
    try:
        tree = ast.parse(f"assert _x == {pred}")
        alone = ast.parse(pred.strip(), mode="eval").body
        value = ast.literal_eval(alone)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NO_VALUE
    test = tree.body[0]
    if not (isinstance(test, ast.Assert) and test.msg is None and isinstance(test.test, ast.Compare)
            and len(test.test.comparators) == 1 and ast.dump(test.test.comparators[0]) == ast.dump(alone)):
        return _NO_VALUE
    return value


@needs_shared("codemind-layout", "dataset", "Avatar")
@pytest.mark.parametrize("bench", ["humaneval", "classeval", "Avatar"])
def test_execution_scoring_judges_each_kind_by_running_it(bench, sandbox):
    layout = shared("codemind-layout")
    rows = {r.id: r for r in load_rows(layout / "dataset" / bench)}
    results = evaluate_paths(layout / "dataset" / bench, layout / "Experiment_Results", bench=bench,
                             match="execution", workers=2)
    ids = sorted(rows)
    outcomes = dict(zip(ids, sandbox.run_batch([request_for(rows[i].code, rows[i].entry_point, rows[i].input_kind,
                                                            rows[i].input) for i in ids])))
    sets = {p.model: p for p in load_predictions(layout / "Experiment_Results", bench=bench)}
    checked = 0
    for res in results:
        for s in res.rows:
            row, o, pred = rows[s.id], outcomes[s.id], sets[res.model].predictions[s.id][0]
            if row.input_kind == "stdin":  # the recorded standard output is the truth of a stdin row
                assert s.correct == [same_stdout(row.output, pred)], (res.model, s.id)
                checked += 1
                continue
            value = _compared_literal(pred)
            if value is _NO_VALUE:
                continue  # not one literal the assertion compares with (a message after a comma, a name...)
            if o.status == "returned" and o.literal_ok:
                truth = ast.literal_eval(o.value_repr)
                assert s.correct == [truth == value], (res.model, s.id, pred, o.value_repr)
                checked += 1
    assert checked >= len(rows)  # four models' answers: at least one checked answer per row on average
