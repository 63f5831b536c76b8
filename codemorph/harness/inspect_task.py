"""The Inspect AI task ``codemorph/execution_prediction`` (needs ``codemorph[inspect]``).

Run it on any Inspect model provider::

    inspect eval codemorph/execution_prediction -T dataset=out.jsonl -T mode=output -T cot=false \\
        --model vllm/codellama/CodeLlama-7b-hf

The data set is anything :func:`codemorph.scoring.predictions.load_rows` reads (CRUXEval /
``codemorph generate`` / ``codemorph perturb`` JSON Lines, CodeMind ``dataset/<bench>``
folders).  Prompts are CRUXEval's (:mod:`codemorph.harness.prompts`); the run settings are
CRUXEval's (``openai_run.py``): 10 samples per row (Inspect epochs, mean reducer, so the
accuracy is pass@1), temperature 0.2 (use 0.8 and ``codemorph evaluate --k 1,5`` on the log
for pass@5), stop ``[/ANSWER]``, 100 new tokens (1000 with chain of thought).  Each sample's
answer is extracted with :func:`~codemorph.scoring.predictions.extract_answer` and scored by
:func:`codemorph.scoring.evaluate.score_generations` -- the same sandboxed check programs
``codemorph evaluate`` runs; model output never runs in the host.  Unparsable generations
score 0 and are counted (metric ``unparsable``, a fraction of samples).

Sample metadata: ``id``, ``original_id``, ``kind``, ``transforms``, ``exception_type``,
``entry_point``, ``input_kind``, ``mode``.  Prompts and scoring follow each row's input kind
(:func:`codemorph.harness.prompts.build_prompt`; ``stdin`` answers are a stream's text).  The log is also a predictions file for ``codemorph evaluate``.
"""

from __future__ import annotations

import threading
from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import (CORRECT, INCORRECT, Score, Target, accuracy, mean, scorer, stderr)
from inspect_ai.solver import TaskState, generate

from codemorph.harness.prompts import MAX_TOKENS, STOP, build_prompt, exception_classes, resolve_exceptions
from codemorph.scoring.evaluate import HARNESS_TIMEOUT, score_generations
from codemorph.scoring.predictions import EvalRow, extract_answer, load_rows, predicted_exception

__all__ = ["execution_prediction", "execution_scorer", "row_samples"]


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        if value.strip().lower() in ("1", "true", "yes", "on"):
            return True
        if value.strip().lower() in ("0", "false", "no", "off", ""):
            return False
        raise ValueError(f"expected true or false, got {value!r}")
    return bool(value)


def row_samples(rows: list[EvalRow], mode: str, cot: bool, exceptions: str) -> list[Sample]:
    """One Inspect :class:`Sample` per row: the prompt of :func:`build_prompt`, the target
    (expected output repr or standard output, or ``raises T``; input mode: the row's call,
    expression or standard input) and the metadata
    listed in the module docstring.

    Raises:
        ValueError: as :func:`build_prompt`.
    """
    classes = exception_classes(rows) if exceptions == "class-list" else ()
    out = []
    for r in rows:
        if mode == "output":
            target = r.output if r.output is not None else f"raises {r.exception_type}"
        else:
            target = r.input if r.input_kind in ("call", "stdin") else f"{r.entry_point}({r.input})"
        out.append(Sample(input=build_prompt(r, mode, cot, exceptions, classes), target=target, id=r.id,
                          metadata={"id": r.id, "original_id": r.original_id or r.id, "kind": r.kind,
                                    "transforms": list(r.transforms), "exception_type": r.exception_type,
                                    "entry_point": r.entry_point, "input_kind": r.input_kind,
                                    "mode": mode}))
    return out


@scorer(metrics={"correct": [accuracy(), stderr()], "unparsable": [mean()]})
def execution_scorer(rows: list[EvalRow], mode: str = "output", strict: bool = False,
                     timeout: float = HARNESS_TIMEOUT, workers: int = 0):
    """Score a sample's completion as ``codemorph evaluate`` scores a prediction.

    Args:
        rows: the data set (samples are matched to rows by ``metadata["id"]``).
        mode: ``"output"`` or ``"input"``.
        strict: ``codemorph evaluate --strict``: one expression, parenthesised.
        timeout: seconds per check program.
        workers: sandbox processes (0: codemorph's default for this machine).

    Returns:
        An Inspect scorer; each :class:`Score` has value ``{"correct": C|I, "unparsable":
        0|1}``, ``answer`` (the extracted answer) and metadata ``status`` (the verdict, as
        in :class:`codemorph.scoring.evaluate.RowScore`), ``extraction`` and
        ``predicted_exception``.
    """
    import anyio

    from codemorph.jobs.executors import default_workers
    from codemorph.scoring.evaluate import harness_sandbox

    by_id = {r.id: r for r in rows}
    lock = threading.Lock()
    box: dict[str, Any] = {}

    def sandbox():
        with lock:
            if "sb" not in box:
                box["sb"] = harness_sandbox(timeout, workers or default_workers())
            return box["sb"]

    async def score(state: TaskState, target: Target) -> Score:
        row = by_id[str(state.metadata["id"])]
        raw = state.output.completion if state.output is not None else ""
        ans = extract_answer(raw, mode, row.input_kind)
        if not ans.parsable:
            return Score(value={"correct": INCORRECT, "unparsable": 1}, answer="", explanation=ans.status,
                         metadata={"status": ans.status, "extraction": ans.status, "predicted_exception": None,
                                   "assertions": ans.assertions})
        sb = sandbox()
        [(ok, status)] = await anyio.to_thread.run_sync(
            lambda: score_generations(row, [ans.text], mode, strict=strict, sandbox=sb))
        return Score(value={"correct": CORRECT if ok else INCORRECT, "unparsable": 0}, answer=ans.text,
                     explanation=status,
                     metadata={"status": status, "extraction": ans.status,
                               "predicted_exception": predicted_exception(ans.text) if mode == "output" else None,
                               "assertions": ans.assertions})

    return score


@task
def execution_prediction(dataset: str, mode: str = "output", cot: bool | str = False, exceptions: str = "auto",
                         samples: int = 10, temperature: float = 0.2, strict: bool | str = False,
                         max_tokens: int | None = None, workers: int = 0) -> Task:
    """CRUXEval-style execution prediction over a codemorph data set.

    Args:
        dataset: path of the data set (any format ``codemorph evaluate`` reads).
        mode: ``"output"`` (predict the return value) or ``"input"`` (predict a call).
        cot: CRUXEval's chain-of-thought prompt.
        exceptions: exception-answer protocol: ``auto``, ``off`` (CRUXEval's prompts
            verbatim), ``may-raise`` or ``class-list`` (see :mod:`codemorph.harness.prompts`).
        samples: generations per row (Inspect epochs; CRUXEval: 10).
        temperature: sampling temperature (CRUXEval: 0.2 for pass@1, 0.8 for pass@5).
        strict: score as ``codemorph evaluate --strict``.
        max_tokens: new tokens per generation (default CRUXEval's: 100, or 1000 with ``cot``).
        workers: sandbox processes of the scorer (0: default).

    Raises:
        InputError: unreadable data set.  ValueError: a bad option.
    """
    if mode not in ("output", "input"):
        raise ValueError(f"mode must be output or input, got {mode!r}")
    cot, strict = _flag(cot), _flag(strict)
    rows = load_rows(dataset)
    exc = resolve_exceptions(exceptions, rows)
    name = f"codemorph_{mode}{'_cot' if cot else ''}"
    return Task(
        dataset=MemoryDataset(row_samples(rows, mode, cot, exc), name=str(dataset)),
        solver=generate(),
        scorer=execution_scorer(rows, mode, strict, workers=int(workers)),
        config=GenerateConfig(temperature=float(temperature), stop_seqs=[STOP],
                              max_tokens=int(max_tokens) if max_tokens else MAX_TOKENS[cot]),
        epochs=Epochs(int(samples), "mean"),
        name=name,
        metadata={"codemorph": {"dataset": str(dataset), "mode": mode, "cot": cot, "exceptions": exc,
                                "strict": strict}},
    )
