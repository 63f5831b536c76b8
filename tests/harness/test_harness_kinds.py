"""Prompts and scoring of the harness tasks for each row kind (``input_kind`` args, call, stdin):
the exact prompt text, and a right and a wrong answer scored through the Inspect task (a scripted
model registered here, as test_inspect_task.py does: Inspect's ``mockllm`` counts tokens with a
tokenizer it downloads) and through an lm-eval task folder (its ``process_results`` hook)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemorph.harness.prompts import build_prompt, make_cot_output_prompt, make_direct_output_prompt
from codemorph.scoring.evaluate import evaluate_dataset
from codemorph.scoring.predictions import EvalRow, extract_answer, load_predictions

ARGS = EvalRow("a0", "def f(x):\n    return x + 1", "1", "2")
CALL = EvalRow("c0", "def add(a, b):\n    return a + b", "add(6, 8)", "14", "add", input_kind="call")
CLASS = EvalRow("c1", "class Test:\n    def test(self):\n        return 3", "Test().test()", "3", "Test",
                input_kind="call")
STDIN = EvalRow("s0", "a, b = map(int, input().split())\nprint(a - b)\nprint('a == b' if a == b else 'no')",
                "7 7\n", "0\na == b\n", "__main__", input_kind="stdin")

#: per kind, output mode: (row, right completion, wrong completion); completions are what a
#: server returns after the prompt when it stops at [/ANSWER]
OUTPUT_CASES = {
    "args": (ARGS, "assert f(1) == 2\n", "assert f(1) == 3\n"),
    "call": (CALL, "assert add(6, 8) == 14\n", "assert add(6, 8) == 68\n"),
    "stdin": (STDIN, "0\na == b\n", "0\nno\n"),
}


def _prefix(prompt: str) -> str:
    return prompt[:prompt.rindex("[PYTHON]\n")]


def test_args_prompt_is_cruxevals_byte_for_byte():
    assert build_prompt(ARGS, "output") == make_direct_output_prompt((ARGS.code, "1"))
    assert build_prompt(ARGS, "output", cot=True) == make_cot_output_prompt((ARGS.code, "1"))
    assert build_prompt(ARGS, "output").endswith("[PYTHON]\ndef f(x):\n    return x + 1\nassert f(1) == ??\n"
                                                 "[/PYTHON]\n[ANSWER]\n")


def test_call_prompt_asserts_the_whole_expression():
    p = build_prompt(CALL, "output")
    assert p.endswith("[PYTHON]\ndef add(a, b):\n    return a + b\nassert add(6, 8) == ??\n[/PYTHON]\n[ANSWER]\n")
    assert _prefix(p) == _prefix(make_direct_output_prompt(("", "")))
    assert build_prompt(CLASS, "output").endswith("        return 3\nassert Test().test() == ??\n[/PYTHON]\n"
                                                  "[ANSWER]\n")
    assert build_prompt(CALL, "input").endswith("    return a + b\nassert add(??) == 14\n[/PYTHON]\n[ANSWER]\n")
    assert build_prompt(CLASS, "input").endswith("        return 3\nassert ?? == 3\n[/PYTHON]\n[ANSWER]\n")
    assert build_prompt(CALL, "output", cot=True).endswith("assert add(6, 8) == ??\n[/PYTHON]\n[THOUGHT]\n")


def test_stdin_prompt_shows_the_input_stream_and_asks_for_the_output_stream():
    p = build_prompt(STDIN, "output")
    assert p.startswith("You are given a Python program and the text it reads from standard input. Write the "
                        "exact text the program writes to standard output when it runs on that input,")
    assert p.endswith(f"[PYTHON]\n{STDIN.code}\n[/PYTHON]\n[STDIN]\n7 7\n[/STDIN]\n[ANSWER]\n")
    assert "f(" not in p
    q = build_prompt(STDIN, "input")
    assert q.startswith("You will be given a Python program and the text it writes to standard output. Find any "
                        "standard input such that running the program on it leads to the given output.")
    assert q.endswith(f"[PYTHON]\n{STDIN.code}\n[/PYTHON]\n[STDOUT]\n0\na == b\n[/STDOUT]\n[ANSWER]\n")
    assert build_prompt(STDIN, "output", cot=True).endswith("[STDIN]\n7 7\n[/STDIN]\n[THOUGHT]\n")


def test_stdin_exception_prompts_use_the_program_wording():
    raising = EvalRow("s1", "print(1 // int(input()))", "0\n", None, "__main__", exception_type="ZeroDivisionError",
                      input_kind="stdin")
    p = build_prompt(raising, "output", exceptions="may-raise")
    assert p.split("\n\n")[0].endswith(" The program may end with an uncaught exception. If it does, answer with "
                                       "`raises` and the exception class instead of its output, as in "
                                       "`raises IndexError`.")
    q = build_prompt(raising, "input", exceptions="may-raise")
    assert q.endswith("[STDOUT]\n(the program raises ZeroDivisionError)\n[/STDOUT]\n[ANSWER]\n")


def test_stdin_answer_keeps_the_stream_text_whole():
    assert extract_answer("0\na == b\n", "output", "stdin").text == "0\na == b"
    assert extract_answer("[THOUGHT]x[/THOUGHT]\n[ANSWER]\n  1 2\n3\n", "output", "stdin").text == "  1 2\n3"
    assert extract_answer("0\na == b\n", "output").text == "b"  # the assertion rule of args rows


def _scripted_model():
    """Register (once) an Inspect model that answers the n-th request with the n-th of its
    ``outputs`` and records the prompts it saw."""
    from inspect_ai.model import ModelAPI, ModelOutput, modelapi

    @modelapi(name="codemorph-scripted")
    class ScriptedModel(ModelAPI):
        def __init__(self, model_name, base_url=None, api_key=None, config=None, outputs=(), **kw) -> None:
            super().__init__(model_name, base_url, api_key, [], config)
            self.outputs = list(outputs)

        async def generate(self, input, tools, tool_choice, config):
            return ModelOutput.from_content(model=self.model_name, content=self.outputs.pop(0))

    return ScriptedModel


def _run_inspect(tmp_path: Path, row: EvalRow, mode: str, completions: list[str]):
    pytest.importorskip("inspect_ai", reason="needs codemorph[inspect]")
    from inspect_ai import eval as inspect_eval

    from codemorph.harness.inspect_task import execution_prediction

    _scripted_model()
    [log] = inspect_eval(execution_prediction(dataset=str(_dataset(tmp_path, row)), mode=mode,
                                              samples=len(completions)),
                         model=f"codemorph-scripted/{row.id}", model_args={"outputs": completions},
                         log_dir=str(tmp_path / "logs"), display="none", max_samples=1, max_connections=1)
    assert log.status == "success", log.error
    return {s.epoch: s for s in log.samples}


def _dataset(tmp_path: Path, row: EvalRow) -> Path:
    d = {"id": row.id, "code": row.code, "input": row.input, "output": row.output, "entry_point": row.entry_point,
         "input_kind": row.input_kind}
    p = tmp_path / f"{row.id}.jsonl"
    p.write_text(json.dumps(d) + "\n", encoding="utf-8")
    return p


@pytest.mark.parametrize("kind", sorted(OUTPUT_CASES))
def test_inspect_task_scores_a_right_and_a_wrong_answer_of_each_kind(tmp_path, kind):
    row, right, wrong = OUTPUT_CASES[kind]
    by_epoch = _run_inspect(tmp_path, row, "output", [right, wrong])
    assert by_epoch[1].input == build_prompt(row, "output")
    assert by_epoch[1].metadata["input_kind"] == kind
    verdicts = {e: s.scores["execution_scorer"].value["correct"] for e, s in by_epoch.items()}
    assert verdicts == {1: "C", 2: "I"}
    # codemorph evaluate reads the log's answers by the same kind rule and agrees
    [log_path] = (tmp_path / "logs").glob("*.eval")
    preds = load_predictions(log_path)[0]
    [score] = evaluate_dataset([row], preds, mode="output", ks=(1,)).rows
    assert score.correct == [True, False]


def test_inspect_task_scores_a_predicted_standard_input(tmp_path):
    by_epoch = _run_inspect(tmp_path, STDIN, "input", ["3 3\n", "3 4\n"])
    verdicts = {e: s.scores["execution_scorer"].value["correct"] for e, s in by_epoch.items()}
    assert verdicts == {1: "C", 2: "I"}


@pytest.mark.parametrize("kind", sorted(OUTPUT_CASES))
def test_lm_eval_task_scores_a_right_and_a_wrong_answer_of_each_kind(tmp_path, kind):
    from codemorph.harness.lm_eval_tasks import doc_to_text, process_results, write_task_folder

    row, right, wrong = OUTPUT_CASES[kind]
    files = write_task_folder(_dataset(tmp_path, row), tmp_path / "tasks", samples=2)
    [doc] = [json.loads(line) for line in files["data.jsonl"].read_text(encoding="utf-8").splitlines()]
    assert doc["input_kind"] == kind
    assert doc_to_text(doc, "output", False) == build_prompt(row, "output")
    assert process_results(doc, [[right]], "output") == {"acc": 1.0, "unparsable": 0.0}
    assert process_results(doc, [[wrong]], "output") == {"acc": 0.0, "unparsable": 0.0}
    assert process_results(doc, [[right, wrong]], "output") == {"acc": 0.5, "unparsable": 0.0}
