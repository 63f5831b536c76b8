"""lm-evaluation-harness task folders for codemorph data sets (``codemorph harness lm-eval``).

:func:`write_task_folder` writes, into ``TASKDIR``:

* ``data.jsonl`` -- the data set's rows in one flat schema (``id``, ``code``, ``input``,
  ``output``, ``entry_point``, ``input_kind``, ``original_id``, ``kind``, ``transforms``,
  ``exception_type``), so that ``dataset_path: json`` loads any format codemorph reads
  (CRUXEval / generate / perturb JSON Lines, CodeMind folders) with one Arrow schema;
* ``codemorph_output.yaml``, ``codemorph_input.yaml``, ``codemorph_output_cot.yaml``,
  ``codemorph_input_cot.yaml`` -- ``generate_until`` tasks over it with CRUXEval's prompts
  (:func:`codemorph.harness.prompts.build_prompt`, zero-shot: the few-shot examples are in the
  template), CRUXEval's settings (``repeats`` 10, temperature 0.2, ``until: ["[/ANSWER]"]``,
  100 / 1000 new tokens) and codemorph's scorer;
* ``utils.py`` -- the ``!function`` hooks; they call this module.

Scoring: a filter keeps every repeat (lm-eval's default keeps only the first); each
generation's answer is extracted with :func:`~codemorph.scoring.predictions.extract_answer`
and scored by :func:`codemorph.scoring.evaluate.score_generations` in codemorph's sandbox
(the task is marked ``unsafe_code``, hence ``--confirm_run_unsafe_code``; nothing runs in the
host).  Metrics per row: ``acc`` (fraction of the row's generations correct: pass@1) and
``unparsable`` (fraction with no answer found); ``lm_eval ... --log_samples`` output is a
predictions file for ``codemorph evaluate`` (pass@k, robustness tables).
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from pathlib import Path
from typing import Any, Sequence

from codemorph.errors import InputError
from codemorph.harness.prompts import MAX_TOKENS, STOP, build_prompt, exception_classes, resolve_exceptions
from codemorph.scoring.evaluate import harness_sandbox, score_generations
from codemorph.scoring.predictions import EvalRow, extract_answer, load_rows

__all__ = ["TASKS", "write_task_folder", "row_from_doc", "doc_to_text", "process_results", "keep_all_responses"]

#: task name -> (mode, chain of thought)
TASKS = {
    "codemorph_output": ("output", False),
    "codemorph_input": ("input", False),
    "codemorph_output_cot": ("output", True),
    "codemorph_input_cot": ("input", True),
}

_UTILS = '''"""Hooks of the codemorph lm-evaluation-harness tasks (written by `codemorph harness lm-eval`)."""

from codemorph.harness.lm_eval_tasks import doc_to_text, keep_all_responses, process_results

EXCEPTIONS = {exceptions!r}
CLASSES = {classes!r}
STRICT = {strict!r}


def _text(mode, cot):
    return lambda doc: doc_to_text(doc, mode, cot, EXCEPTIONS, CLASSES)


def _results(mode):
    return lambda doc, results: process_results(doc, results, mode, STRICT)


doc_to_text_output = _text("output", False)
doc_to_text_input = _text("input", False)
doc_to_text_output_cot = _text("output", True)
doc_to_text_input_cot = _text("input", True)
process_results_output = _results("output")
process_results_input = _results("input")


def doc_to_target(doc):
    return doc["output"] if doc["output"] is not None else "raises " + str(doc["exception_type"])


def keep_all(resps, docs):
    return keep_all_responses(resps, docs)
'''


def _yaml(task: str, mode: str, cot: bool, data: str, samples: int, temperature: float) -> str:
    suffix = f"{mode}{'_cot' if cot else ''}"
    sampling = "true" if temperature > 0 else "false"
    return f"""# written by `codemorph harness lm-eval`; CRUXEval's protocol, scored by codemorph's sandboxed scorer
task: {task}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {json.dumps(data)}
test_split: test
output_type: generate_until
unsafe_code: true
num_fewshot: 0
repeats: {samples}
doc_to_text: !function utils.doc_to_text_{suffix}
doc_to_target: !function utils.doc_to_target
target_delimiter: ""
process_results: !function utils.process_results_{mode}
generation_kwargs:
  until:
    - {json.dumps(STOP)}
  max_gen_toks: {MAX_TOKENS[cot]}
  do_sample: {sampling}
  temperature: {temperature}
filter_list:
  - name: all-generations
    filter:
      - function: custom
        filter_fn: !function utils.keep_all
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: unparsable
    aggregation: mean
    higher_is_better: false
metadata:
  version: 1.0
"""


def write_task_folder(dataset: str | os.PathLike[str], out_dir: str | os.PathLike[str], *, samples: int = 10,
                      temperature: float = 0.2, exceptions: str = "auto", strict: bool = False) -> dict[str, Path]:
    """Write the lm-evaluation-harness task folder for ``dataset`` (module docstring).

    Args:
        dataset: any data set ``codemorph evaluate`` reads.
        out_dir: the folder to write (created; existing task files are overwritten).
        samples: generations per row (lm-eval ``repeats``; CRUXEval: 10).
        temperature: sampling temperature (CRUXEval: 0.2 for pass@1, 0.8 for pass@5; 0 is greedy).
        exceptions: the exception-answer protocol (:mod:`codemorph.harness.prompts`).
        strict: score as ``codemorph evaluate --strict``.

    Returns:
        file name -> path of every file written.

    Raises:
        InputError: unreadable data set, or ``out_dir`` is a file.  ValueError: bad option.
    """
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    rows = load_rows(dataset)
    exc = resolve_exceptions(exceptions, rows)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {}
    data = out / "data.jsonl"
    with open(data, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps({"id": r.id, "code": r.code, "input": r.input, "output": r.output,
                                 "entry_point": r.entry_point, "input_kind": r.input_kind,
                                 "original_id": r.original_id or r.id,
                                 "kind": r.kind, "transforms": list(r.transforms),
                                 "exception_type": r.exception_type}, ensure_ascii=False) + "\n")
    files["data.jsonl"] = data
    classes = exception_classes(rows) if exc == "class-list" else []
    (out / "utils.py").write_text(_UTILS.format(exceptions=exc, classes=classes, strict=bool(strict)),
                                  encoding="utf-8")
    files["utils.py"] = out / "utils.py"
    for task, (mode, cot) in TASKS.items():
        if mode == "input" and exc == "off" and any(r.output is None for r in rows):
            continue  # build_prompt refuses: an exception row has no output to show
        p = out / f"{task}.yaml"
        p.write_text(_yaml(task, mode, cot, str(data.resolve()), samples, float(temperature)), encoding="utf-8")
        files[p.name] = p
    return files


def row_from_doc(doc: dict[str, Any]) -> EvalRow:
    """The :class:`EvalRow` of one ``data.jsonl`` document."""
    return EvalRow(str(doc["id"]), doc["code"], doc["input"], doc.get("output"), doc.get("entry_point") or "f",
                   str(doc.get("original_id") or doc["id"]), doc.get("kind") or "original",
                   tuple(doc.get("transforms") or ()), doc.get("exception_type"),
                   input_kind=doc.get("input_kind") or "args")


def doc_to_text(doc: dict[str, Any], mode: str, cot: bool, exceptions: str = "off",
                classes: Sequence[str] = ()) -> str:
    """The prompt of a document: :func:`codemorph.harness.prompts.build_prompt`."""
    return build_prompt(row_from_doc(doc), mode, cot, exceptions, classes)


def keep_all_responses(resps, docs):
    """lm-eval filter that keeps every repeat's generation (the default keeps the first)."""
    return [list(r) for r in resps]


_lock = threading.Lock()
_sandbox: list[Any] = []


def _shared_sandbox():
    with _lock:
        if not _sandbox:
            from codemorph.jobs.executors import default_workers

            _sandbox.append(harness_sandbox(workers=default_workers()))
            atexit.register(_sandbox[0].close)
        return _sandbox[0]


def process_results(doc: dict[str, Any], results: Sequence[Any], mode: str, strict: bool = False) -> dict[str, float]:
    """Score one document's generations: ``{"acc": correct / n, "unparsable": unparsable / n}``.

    ``results`` is what lm-eval passes: one entry per request, here a list of every repeat's
    generation (see :func:`keep_all_responses`) or a single string.
    """
    gens: list[str] = []
    for r in results:
        gens.extend([r] if isinstance(r, str) else list(r))
    if not gens:
        return {"acc": 0.0, "unparsable": 0.0}
    row = row_from_doc(doc)
    answers = [extract_answer(g, mode, row.input_kind) for g in gens]
    parsable = [a.text for a in answers if a.parsable]
    verdicts = score_generations(row, parsable, mode, strict=strict,
                                 sandbox=_shared_sandbox()) if parsable else []
    correct = sum(ok for ok, _ in verdicts)
    return {"acc": correct / len(gens), "unparsable": (len(gens) - len(parsable)) / len(gens)}
