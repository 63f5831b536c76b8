"""The Inspect AI task codemorph/execution_prediction, end to end with a replaying model.

The replay model recognises the row in CRUXEval's prompt (its last [PYTHON] block) and answers
with the first CodeLlama-7b generation of that row from CRUXEval's published samples, in
CRUXEval's answer format; the task's accuracy must equal ``codemorph evaluate``'s pass@1 on
the same first generations.  100 rows by default; all 800 with CODEMORPH_HARNESS_FULL=1.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

inspect_ai = pytest.importorskip("inspect_ai", reason="needs codemorph[inspect]")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ModelAPI, ModelOutput, modelapi  # noqa: E402

from codemorph.harness.inspect_task import execution_prediction  # noqa: E402
from codemorph.scoring.evaluate import evaluate_dataset  # noqa: E402
from codemorph.scoring.predictions import PredictionSet, load_rows  # noqa: E402

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
CRUX = SHARED / "cruxeval" / "cruxeval.jsonl"
GENS = SHARED / "predictions" / "cruxeval-native-codellama-7b_temp0.2_{mode}.json"
pytestmark = pytest.mark.skipif(not CRUX.is_file() or not GENS.parent.is_dir(),
                                reason=f"CRUXEval data not found under {SHARED}")
ROWS = 800 if os.environ.get("CODEMORPH_HARNESS_FULL") == "1" else 100

_LAST_BLOCK = re.compile(r"\[PYTHON\]\n(.*)\n\[/PYTHON\]", re.S)


def _last_block(prompt: str) -> str:
    return prompt[prompt.rindex("[PYTHON]\n") + len("[PYTHON]\n"):prompt.rindex("\n[/PYTHON]")]


def replay_answers(dataset: Path, mode: str) -> dict[str, str]:
    """prompt's last [PYTHON] block -> the completion CodeLlama's first generation makes in
    CRUXEval's format (what a server returns when it stops at [/ANSWER])."""
    gens = json.loads(Path(str(GENS).format(mode=mode)).read_text())
    out: dict[str, str] = {}
    for r in load_rows(dataset):
        g = gens[r.id][0]
        if mode == "output":
            key, answer = f"{r.code}\nassert f({r.input}) == ??", f"assert f({r.input}) == {g}\n"
        else:
            key, answer = f"{r.code}\nassert f(??) == {r.output}", f"assert {g} == {r.output}\n"
        assert key not in out, "two rows with the same prompt"
        out[key] = answer
    return out


@modelapi(name="codemorph-replay")
class ReplayModel(ModelAPI):
    """Answers each prompt with the recorded completion of the row it recognises."""

    def __init__(self, model_name: str, base_url=None, api_key=None, config=None, answers=None, **kw) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.answers = answers or {}

    async def generate(self, input, tools, tool_choice, config):
        prompt = input[-1].text
        return ModelOutput.from_content(model=self.model_name, content=self.answers[_last_block(prompt)])


def _subset(tmp_path: Path, n: int) -> Path:
    lines = CRUX.read_text(encoding="utf-8").splitlines(keepends=True)[:n]
    p = tmp_path / f"cruxeval_{n}.jsonl"
    p.write_text("".join(lines), encoding="utf-8")
    return p


@pytest.mark.parametrize("mode", ["output", "input"])
def test_inspect_task_accuracy_equals_evaluate_pass_at_1_on_first_codellama_generations(tmp_path, mode):
    data = _subset(tmp_path, ROWS)
    answers = replay_answers(data, mode)
    [log] = inspect_eval(execution_prediction(dataset=str(data), mode=mode, samples=1), model=f"codemorph-replay/codellama-7b-{mode}",
                         model_args={"answers": answers}, log_dir=str(tmp_path / "logs"), display="none",
                         max_samples=8)
    assert log.status == "success", log.error
    metrics = {s.name: s.metrics for s in log.results.scores}
    inspect_acc = metrics["correct"]["accuracy"].value
    assert metrics["unparsable"]["mean"].value == 0

    gens = json.loads(Path(str(GENS).format(mode=mode)).read_text())
    rows = load_rows(data)
    first = PredictionSet("codellama-7b", {r.id: [gens[r.id][0]] for r in rows})
    ref = evaluate_dataset(rows, first, mode=mode, ks=(1,))
    assert len(log.samples) == ROWS
    print(f"{mode}: inspect accuracy {inspect_acc:.4f}, evaluate pass@1 {ref.pass_at_k[1]:.4f} on {ROWS} rows")
    assert inspect_acc == pytest.approx(ref.pass_at_k[1], abs=1e-12)
    # per-row agreement, not only the mean, and the metadata codemorph needs to pair rows
    by_id = {s.id: s.correct[0] for s in ref.rows}
    for s in read_eval_log(log.location).samples:
        assert (s.scores["execution_scorer"].value["correct"] == "C") == by_id[s.id]
        assert s.metadata["id"] == s.id and s.metadata["original_id"] == s.id
        assert s.metadata["kind"] == "original" and s.metadata["transforms"] == []
