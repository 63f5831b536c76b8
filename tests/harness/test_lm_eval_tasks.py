"""`codemorph harness lm-eval` task folders, run through lm_eval.simple_evaluate with a
replaying LM registered here: its accuracy equals `codemorph evaluate`'s pass@1 on CodeLlama's
first generations (100 rows by default, 800 with CODEMORPH_HARNESS_FULL=1)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("lm_eval", reason="needs codemorph[lm-eval]")

from lm_eval import simple_evaluate  # noqa: E402
from lm_eval.api.model import LM  # noqa: E402
from lm_eval.api.registry import register_model  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from codemorph.cli.main import app  # noqa: E402
from codemorph.harness.prompts import build_prompt  # noqa: E402
from codemorph.scoring.evaluate import evaluate_dataset  # noqa: E402
from codemorph.scoring.predictions import PredictionSet, load_rows  # noqa: E402

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
CRUX = SHARED / "cruxeval" / "cruxeval.jsonl"
GENS = SHARED / "predictions" / "cruxeval-native-codellama-7b_temp0.2_{mode}.json"
pytestmark = pytest.mark.skipif(not CRUX.is_file() or not GENS.parent.is_dir(),
                                reason=f"CRUXEval data not found under {SHARED}")
ROWS = 800 if os.environ.get("CODEMORPH_HARNESS_FULL") == "1" else 100


def _last_block(prompt: str) -> str:
    return prompt[prompt.rindex("[PYTHON]\n") + len("[PYTHON]\n"):prompt.rindex("\n[/PYTHON]")]


@register_model("codemorph-replay")
class ReplayLM(LM):
    """Completes each prompt with the recorded completion of the row found in its last [PYTHON] block."""

    def __init__(self, answers: str, **kwargs) -> None:
        super().__init__()
        self.answers = json.loads(Path(answers).read_text())
        self.contexts: list[str] = []

    def generate_until(self, requests, disable_tqdm: bool = False):
        out = []
        for req in requests:
            context, gen_kwargs = req.args
            assert gen_kwargs["until"] == ["[/ANSWER]"]
            self.contexts.append(context)
            out.append(self.answers[_last_block(context)])
        return out

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError


def _replay_file(tmp_path: Path, data: Path, mode: str) -> Path:
    gens = json.loads(Path(str(GENS).format(mode=mode)).read_text())
    answers = {}
    for r in load_rows(data):
        g = gens[r.id][0]
        if mode == "output":
            answers[f"{r.code}\nassert f({r.input}) == ??"] = f"assert f({r.input}) == {g}\n"
        else:
            answers[f"{r.code}\nassert f(??) == {r.output}"] = f"assert {g} == {r.output}\n"
    p = tmp_path / f"answers_{mode}.json"
    p.write_text(json.dumps(answers))
    return p


@pytest.mark.parametrize("mode", ["output", "input"])
def test_lm_eval_task_accuracy_equals_evaluate_pass_at_1_on_first_codellama_generations(tmp_path, mode):
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(CRUX.read_text(encoding="utf-8").splitlines(keepends=True)[:ROWS]), encoding="utf-8")
    taskdir = tmp_path / "tasks"
    res = CliRunner().invoke(app, ["harness", "lm-eval", str(data), "-o", str(taskdir), "--samples", "1"])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in taskdir.glob("*.yaml")) == [
        "codemorph_input.yaml", "codemorph_input_cot.yaml", "codemorph_output.yaml", "codemorph_output_cot.yaml"]

    task = f"codemorph_{mode}"
    out = simple_evaluate(model="codemorph-replay", model_args={"answers": str(_replay_file(tmp_path, data, mode))},
                          tasks=[task], task_manager=TaskManager(include_path=str(taskdir)),
                          confirm_run_unsafe_code=True, log_samples=True)
    acc = out["results"][task]["acc,all-generations"]
    assert out["results"][task]["unparsable,all-generations"] == 0

    rows = load_rows(data)
    gens = json.loads(Path(str(GENS).format(mode=mode)).read_text())
    ref = evaluate_dataset(rows, PredictionSet("codellama-7b", {r.id: [gens[r.id][0]] for r in rows}),
                           mode=mode, ks=(1,))
    print(f"{mode}: lm-eval acc {acc:.4f}, evaluate pass@1 {ref.pass_at_k[1]:.4f} on {ROWS} rows")
    assert acc == pytest.approx(ref.pass_at_k[1], abs=1e-12)
    samples = out["samples"][task]
    assert len(samples) == ROWS
    # the prompts lm-eval sent are CRUXEval's, byte for byte
    by_id = {r.id: r for r in rows}
    for s in samples[:20]:
        assert s["arguments"][0][0] == build_prompt(by_id[s["doc"]["id"]], mode)
