"""`codemorph evaluate` on the logs of both harnesses gives the figures it gives on a predictions
file: pass@1 and pass@5 on CRUXEval rows (10 generations per row), and the robustness and
per-exception-class tables on a data set made by `generate` and `perturb`; scripted
exception answers are scored right exactly when they name the raised class."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="needs codemorph[inspect]")
pytest.importorskip("lm_eval", reason="needs codemorph[lm-eval]")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelAPI, ModelOutput, modelapi  # noqa: E402
from lm_eval import simple_evaluate  # noqa: E402
from lm_eval.api.model import LM  # noqa: E402
from lm_eval.api.registry import register_model  # noqa: E402
from lm_eval.loggers import EvaluationTracker  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402

from codemorph.harness.inspect_task import execution_prediction  # noqa: E402
from codemorph.harness.lm_eval_tasks import write_task_folder  # noqa: E402
from codemorph.scoring.evaluate import evaluate_paths  # noqa: E402
from codemorph.scoring.predictions import load_predictions, load_rows  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CRUX = ROOT / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"
GENS = ROOT / "shared" / "data" / "predictions" / "cruxeval-native-codellama-7b_temp0.2_output.json"
FOUR = ROOT / "ref" / "base_four.jsonl"
PERTURB = ROOT / "ref" / "base_perturb.jsonl"
needs_data = pytest.mark.skipif(not CRUX.is_file() or not GENS.is_file(), reason=f"CRUXEval data not under {ROOT}")


def _block(prompt: str) -> str:
    return prompt[prompt.rindex("[PYTHON]\n") + len("[PYTHON]\n"):prompt.rindex("\n[/PYTHON]")]


class _Script:
    """block of the prompt -> completions to give, in turn (the i-th call gets the i-th)."""

    def __init__(self, answers: dict[str, list[str]]) -> None:
        self.answers, self.calls = answers, {}

    def __call__(self, prompt: str) -> str:
        key = _block(prompt)
        i = self.calls.get(key, 0)
        self.calls[key] = i + 1
        return self.answers[key][i % len(self.answers[key])]


@modelapi(name="codemorph-script")
class ScriptModel(ModelAPI):
    def __init__(self, model_name, base_url=None, api_key=None, config=None, script=None, **kw):
        super().__init__(model_name, base_url, api_key, [], config)
        self.script = script

    async def generate(self, input, tools, tool_choice, config):
        return ModelOutput.from_content(model=self.model_name, content=self.script(input[-1].text))


@register_model("codemorph-script")
class ScriptLM(LM):
    def __init__(self, script: str, **kw):
        super().__init__()
        self.script = _Script(json.loads(Path(script).read_text()))

    def generate_until(self, requests, disable_tqdm=False):
        return [self.script(r.args[0]) for r in requests]

    def loglikelihood(self, requests, disable_tqdm=False):
        raise NotImplementedError

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError


def _key(r) -> str:
    return f"{r.code}\nassert f({r.input}) == ??"


def _run_inspect(tmp_path: Path, data: Path, answers: dict[str, list[str]], samples: int) -> Path:
    [log] = inspect_eval(execution_prediction(dataset=str(data), mode="output", samples=samples),
                         model=f"codemorph-script/{tmp_path.name}", model_args={"script": _Script(answers)},
                         log_dir=str(tmp_path / "logs"), display="none", max_samples=8)
    assert log.status == "success", log.error
    return Path(log.location)


def _run_lm_eval(tmp_path: Path, data: Path, answers: dict[str, list[str]], samples: int) -> Path:
    taskdir = tmp_path / "tasks"
    write_task_folder(data, taskdir, samples=samples)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(answers))
    tracker = EvaluationTracker(output_path=str(tmp_path / "lm_out"))
    out = simple_evaluate(model="codemorph-script", model_args={"script": str(script)}, tasks=["codemorph_output"],
                          task_manager=TaskManager(include_path=str(taskdir)), confirm_run_unsafe_code=True,
                          log_samples=True, evaluation_tracker=tracker)
    tracker.save_results_aggregated(results=out, samples=out["samples"])
    tracker.save_results_samples(task_name="codemorph_output", samples=out["samples"]["codemorph_output"])
    [samples_file] = (tmp_path / "lm_out").rglob("samples_codemorph_output_*.jsonl")
    return samples_file


@needs_data
@pytest.mark.parametrize("harness", ["inspect", "lm-eval"])
def test_evaluate_on_harness_log_gives_the_pass_at_k_of_the_predictions_file(tmp_path, harness):
    rows_text = CRUX.read_text(encoding="utf-8").splitlines(keepends=True)[:20]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(rows_text), encoding="utf-8")
    rows = load_rows(data)
    gens = json.loads(GENS.read_text())
    preds = tmp_path / "codellama.json"
    preds.write_text(json.dumps({r.id: gens[r.id] for r in rows}))
    answers = {_key(r): [f"assert f({r.input}) == {g}\n" for g in gens[r.id]] for r in rows}
    log = (_run_inspect if harness == "inspect" else _run_lm_eval)(tmp_path, data, answers, samples=10)

    [ps] = load_predictions(log)
    assert ps.format == harness and ps.mode == "output" and ps.unparsable == 0
    [from_log] = evaluate_paths(data, log, ks=(1, 5), n_resamples=50)
    [from_file] = evaluate_paths(data, preds, ks=(1, 5), n_resamples=50)
    assert from_log.pass_at_k_rows == from_file.pass_at_k_rows == {1: 20, 5: 20}
    assert from_log.pass_at_k == pytest.approx(from_file.pass_at_k, abs=1e-12)
    assert 0 < from_file.pass_at_k[1] < from_file.pass_at_k[5] < 1
    # the same generations per row (Inspect's epochs may come back in another order)
    assert {s.id: s.c for s in from_log.rows} == {s.id: s.c for s in from_file.rows}


@needs_data
@pytest.mark.skipif(not FOUR.is_file() or not PERTURB.is_file(), reason=f"reference data sets not under {ROOT / 'ref'}")
@pytest.mark.parametrize("harness", ["inspect", "lm-eval"])
def test_evaluate_on_harness_log_gives_robustness_and_exception_tables_of_the_predictions_file(tmp_path, harness):
    # a data set made by generate (4 transforms) and perturb, for 8 originals with exception rows
    perturb = [json.loads(x) for x in PERTURB.read_text().splitlines()]
    originals = []
    for r in perturb:
        if r.get("exception") and r["original_id"] not in originals:
            originals.append(r["original_id"])
    originals = originals[:8]
    keep = [x for x in FOUR.read_text().splitlines() if json.loads(x)["original_id"] in originals]
    keep += [x for x in PERTURB.read_text().splitlines() if json.loads(x)["original_id"] in originals]
    data = tmp_path / "robust.jsonl"
    data.write_text("\n".join(keep) + "\n", encoding="utf-8")
    rows = load_rows(data)
    gens = json.loads(GENS.read_text())

    # every row answered with its original's first CodeLlama generation; exception rows scripted:
    # the raised class on every other exception row, another class on the rest
    expected_right: dict[str, bool] = {}
    answers, jsonl = {}, []
    k = 0
    for r in rows:
        if r.exception_type:
            right = k % 2 == 0
            k += 1
            name = r.exception_type if right else ("KeyError" if r.exception_type != "KeyError" else "ValueError")
            answers[_key(r)] = [f"assert f({r.input}) raises {name}\n"]
            jsonl.append({"id": r.id, "prediction": f"raises {name}"})
            expected_right[r.id] = right
        else:
            g = gens[r.original_id][0]
            answers[_key(r)] = [f"assert f({r.input}) == {g}\n"]
            jsonl.append({"id": r.id, "prediction": g})
    assert len(expected_right) >= 8 and any(expected_right.values()) and not all(expected_right.values())
    preds = tmp_path / "scripted.jsonl"
    preds.write_text("".join(json.dumps(x) + "\n" for x in jsonl))
    log = (_run_inspect if harness == "inspect" else _run_lm_eval)(tmp_path, data, answers, samples=1)

    [from_log] = evaluate_paths(data, log, n_resamples=50)
    [from_file] = evaluate_paths(data, preds, n_resamples=50)
    assert from_log.robustness.to_json() == from_file.robustness.to_json()
    assert from_log.exception_confusion == from_file.exception_confusion
    scored = {s.id: s.correct[0] for s in from_log.rows}
    assert {i: scored[i] for i in expected_right} == expected_right
    # identical predictions on an original and its code-transform variants: no flips, and the
    # paired robust accuracy of each transform is the originals' accuracy
    groups = {g.group: g for g in from_log.robustness.groups}
    assert {"rename-locals", "dead-code"} <= set(groups)
    for name in ("rename-locals", "dead-code", "for-to-while", "invert-if"):
        if name in groups:
            assert groups[name].flip_rate == 0.0
            assert groups[name].robust_accuracy == pytest.approx(groups[name].original_accuracy)
    conf = from_log.exception_confusion
    n_exc = len(expected_right)
    assert sum(conf["matrix"][t][t] for t in conf["classes"]) == sum(expected_right.values())
    assert sum(c["support"] for c in conf["classes"].values()) == n_exc
    assert conf["false_exceptions"] == 0 and conf["missed_exceptions"] == 0
