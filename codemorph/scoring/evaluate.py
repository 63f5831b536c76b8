"""Scoring model predictions on codemorph / CRUXEval data sets, and robustness metrics.

Scoring rules (``match="execution"``, the default) follow CRUXEval's own harness
(facebookresearch/cruxeval, ``evaluation/utils_general.py::evaluate_score`` and
``evaluation/evaluate_generations.py``) exactly:

* every generation ``g`` of a row is judged on its own; the check program is
  ``f"{code}\\nassert {output} == {g}"``, run as a script (in codemorph's sandbox, never in
  this process) with a 3 s timeout and, as the harness's ``swallow_io`` does, its standard
  output and error sent to a ``StringIO`` never read (:func:`swallow_output`); the generation
  is correct iff the script finishes without raising.  Output mode: ``g`` is a literal; input mode: ``g`` is a call such as
  ``f('sea')``.
* generations the harness refuses are counted as **incorrect and kept** (they are not
  dropped, so ``n`` in pass@k stays the number of generations): in input mode a
  generation that does not contain ``"f("``, in output mode one that contains the call
  ``f(<input>)`` itself (``f`` is the row's entry point).
* pass@k is the unbiased estimator of Chen et al. (2021) with ``n`` = all generations of
  the row and ``c`` = correct ones, averaged over rows.  (Rows with fewer than ``k``
  generations are left out of pass@k -- the harness would count them as solved; rows
  without a prediction scored as wrong, ``missing="wrong"``, count 0 at every ``k``.)

Identical check programs of one row are executed once (the result of a deterministic
program does not depend on how many times it runs).  Each row's checks run in sandbox
batches of at most :data:`BATCH_SIZE`; the sandbox uses the harness's default recursion
limit (1000) and timeout (3 s).  Batches run on this machine (``workers`` sandbox
processes) or, with ``executor=DaskExecutor(...)``, on the workers of a Dask cluster (one
sandbox per worker thread) through :func:`codemorph.executors.map_rows`; every verdict
depends only on its check program, so the scores are the same either way.

``strict=True`` closes the loopholes of the harness: the generation must parse as one
expression and is parenthesised (``assert OUT == (g)``), so a generation such as
``1 or True`` cannot pass; an output answer may not call the entry point at all (the
harness refuses only the text ``f(<input>)``, so ``f( 2)`` or ``[f(1 + 1)][0]`` computed the
value), and an input answer on an ``args`` row must be one call of the entry point whose
arguments do not call it (not ``(f(0), f(2))[1]`` or ``f(f(1))``; status ``not-one-call``).

Diagnostics (:attr:`EvaluationResult.warnings`, the summary JSON): unparsable generations of
harness logs, generations that make the assertion trivially true (:func:`trivially_true`),
a mode the predictions contradict, models scored on different row sets, and (output mode) the
confusion matrix of exception answers with per-class precision, recall and F1
(:func:`codemorph.scoring.metrics.exception_confusion`).

Exception rows (``output`` null, ``exception: {"type": T}``):

* output mode: a generation is correct iff it *names the raised class*
  (:func:`names_exception`, read by :func:`codemorph.scoring.predictions.exception_named`):
  ``raises T`` or ``assert f(...) raises T`` (the exception-answer protocol of
  :mod:`codemorph.harness.prompts`), the last line of a ``Traceback`` block, ``T: message``,
  ``T``, ``(T)``, ``T(...)``, ``raise T``, ``raise T from U`` (the raised one is ``T``), with
  an optional ``builtins.`` prefix.  ``'IndexError'`` as a string literal, two classes
  (``T or U``) or another class (a base class such as ``LookupError``, or a subclass) is not
  correct.  Nothing is executed.
* input mode: the generation must be one expression (a call such as ``f(...)``);
  it is run after the code and is correct iff it raises exactly class ``T`` from the
  program's code: an exception raised by the answer's own expression, before or instead of
  the call (``f([][0])``, ``[][0] or f([])``; status ``answer-raised:T``), is not, and on
  ``args`` rows neither is one that never went through the entry point (``f(helper([]))``,
  raised in the program's own ``helper`` before ``f`` runs).

``match="exact"`` reproduces ExeRScope's string matching
(Intelligent-CAT-Lab/ExeRScope, ``analysis/parse_results.py``): both prediction and
expected output are stripped, spaces removed and ``"`` replaced by ``'``, then compared
as strings; the expected output is the data set's recorded text
(:attr:`EvalRow.recorded_output`, a CodeMind ``output.txt`` as Python's text mode reads it)
when there is one, else ``output`` (input mode compares with the call ``f(<input>)``, a
``call`` row's expression or a ``stdin`` row's input).  An exception row in output mode
compares with its recorded text (a layout's ``raises T``) when it has one, else follows
:func:`names_exception`.

Row kinds (:attr:`EvalRow.input_kind`): ``call`` rows are judged by
``assert <input> == <generation>`` after the code (output mode; input mode as ``args``
rows); ``stdin`` rows by comparing the generation with the row's standard output under
:func:`codemorph.rows.codemind.same_stdout` (output mode), or by running the program on the
predicted standard input in the sandbox and comparing what it writes (input mode; the
prediction is read as a CodeMind ``input.txt`` is, :func:`codemorph.rows.codemind.read_stdin_text`).  Exception rows use the
naming rule above.  Accuracies are over the rows that have a prediction, as there.
"""

from __future__ import annotations

import ast
import json
import math
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from codemorph.errors import InputError, OutputWriteError
from codemorph.rows.codemind import read_stdin_text, same_stdout
from codemorph.scoring.metrics import bootstrap_ci, mean_pass_at_k, pass_at_k, wilson_interval
from codemorph.scoring.predictions import EvalRow, PredictionSet, load_predictions, load_rows

__all__ = [
    "RowScore",
    "GroupStats",
    "ExceptionStats",
    "Robustness",
    "EvaluationResult",
    "evaluate_dataset",
    "evaluate_many",
    "evaluate_paths",
    "prediction_rejects",
    "write_rejects",
    "robustness",
    "names_exception",
    "normalize_exact",
    "check_program",
    "call_statements",
    "expected_expression",
    "stdout_verdict",
    "score_generations",
    "trivially_true",
    "holds_nan",
    "names_bare_float",
    "harness_sandbox",
    "swallow_output",
    "SWALLOW_LINE",
    "write_scores",
    "write_summary",
    "read_scores",
    "HARNESS_TIMEOUT",
]

#: seconds per check program, as in CRUXEval's harness (``check_correctness(..., 3)``)
HARNESS_TIMEOUT = 3.0
#: Python's default recursion limit, which the harness leaves unchanged
HARNESS_RECURSION_LIMIT = 1000
#: distinct check programs of one row run per sandbox batch (one fork per batch)
BATCH_SIZE = 4

MODES = ("output", "input")
MATCHES = ("execution", "exact")


# --------------------------------------------------------------------------- results

@dataclass
class RowScore:
    """Scores of one model's generations on one row.

    Attributes:
        id, original_id, kind, group, transforms, exception_type: copied from the row
            (``group`` is :attr:`EvalRow.group`).
        model: model name.
        correct: one bool per generation, in order.
        status: one short word per generation: ``pass``, ``fail:<ExceptionClass>``,
            ``timeout``, ``memory``, ``crashed``, ``output-limit``, ``refused``, ``skip:no-call``,
            ``not-one-call`` (``strict``, input mode), ``raised:<ExceptionClass>`` /
            ``returned`` (exception rows, input mode),
            ``answer-raised:<ExceptionClass>`` (the answer's own expression raised, not the program),
            ``skip:call-in-output``, ``not-expression``, ``exact``, ``no-match``,
            ``names-exception``, ``missing`` (no prediction, ``missing="wrong"``).
    """

    id: str
    original_id: str
    kind: str
    group: str
    transforms: tuple[str, ...]
    exception_type: str | None
    model: str
    correct: list[bool]
    status: list[str]

    @property
    def n(self) -> int:
        """Number of generations scored."""
        return len(self.correct)

    @property
    def c(self) -> int:
        """Number of correct generations."""
        return sum(self.correct)

    @property
    def score(self) -> float:
        """Fraction of correct generations (= the row's pass@1)."""
        return self.c / self.n if self.n else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "original_id": self.original_id, "kind": self.kind, "group": self.group,
                "transforms": list(self.transforms), "exception_type": self.exception_type,
                "model": self.model, "n": self.n, "c": self.c, "score": self.score,
                "correct": self.correct, "status": self.status}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "RowScore":
        return cls(str(d["id"]), str(d.get("original_id") or d["id"]), d.get("kind") or "original",
                   d.get("group") or "original", tuple(d.get("transforms") or ()), d.get("exception_type"),
                   str(d.get("model") or ""), [bool(x) for x in d["correct"]],
                   list(d.get("status") or [""] * len(d["correct"])))


@dataclass
class GroupStats:
    """Accuracy of one robustness group (a transform, a pipeline, input perturbations)
    against the originals the group's rows come from.

    Attributes:
        group: the group name (see :attr:`EvalRow.group`).
        rows: number of scored rows in the group.
        originals: number of distinct originals they come from (with a scored original).
        accuracy: mean row score of the group's rows (fraction in [0, 1]).
        original_accuracy: mean score of the paired originals (one term per group row).
        abs_drop: ``original_accuracy - accuracy`` (fraction points).
        rel_drop: ``abs_drop / original_accuracy`` (``None`` when that is 0).
        robust_accuracy: *paired robust accuracy*: over the originals, the fraction of
            sample indices ``i`` at which the original's generation ``i`` and generation ``i``
            of every row of this group are all correct (one generation per row: the original
            and all its variants correct).  Sample ``i`` of the original is paired with sample
            ``i`` of each variant (the same draw of the harness run, e.g. the same Inspect
            epoch), up to the fewest generations in the cluster, so identical predictions give
            ``robust_accuracy == original_accuracy``.
        flip_rate: *paired flip rate*: over (original, variant, ``i``) triples, the fraction
            whose correctness differs (identical predictions: 0).
        accuracy_ci, abs_drop_ci, robust_ci, flip_ci: bootstrap 95% intervals,
            resampling originals (clusters), or ``None``.
    """

    group: str
    rows: int
    originals: int
    accuracy: float
    original_accuracy: float
    abs_drop: float
    rel_drop: float | None
    robust_accuracy: float
    flip_rate: float
    accuracy_ci: tuple[float, float] | None = None
    abs_drop_ci: tuple[float, float] | None = None
    robust_ci: tuple[float, float] | None = None
    flip_ci: tuple[float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ExceptionStats:
    """Accuracy on the rows whose call raises one exception class.

    Attributes:
        type: the class name; rows: number of scored rows; accuracy: mean row score;
        ci: Wilson 95% interval (on ``accuracy * rows`` successes of ``rows``).
    """

    type: str
    rows: int
    accuracy: float
    ci: tuple[float, float]

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Robustness:
    """Robustness metrics of one model on a data set made by ``codemorph generate``.

    Attributes:
        original_rows: number of scored original rows; original_accuracy and its
            bootstrap interval ``original_ci``.
        groups: one :class:`GroupStats` per transform / perturbation group, sorted by name.
        robust_accuracy: paired robust accuracy over originals that have at least one scored
            variant: fraction (per sample index, see :class:`GroupStats`) whose original and
            all variants (every group) are correct; ``robust_originals``
            is that number of originals; ``robust_ci`` the bootstrap interval.
        exceptions: per exception class accuracy (all rows, originals and variants).
    """

    original_rows: int
    original_accuracy: float | None
    original_ci: tuple[float, float] | None
    groups: list[GroupStats]
    robust_originals: int
    robust_accuracy: float | None
    robust_ci: tuple[float, float] | None
    exceptions: list[ExceptionStats]

    def to_json(self) -> dict[str, Any]:
        return {"original_rows": self.original_rows, "original_accuracy": self.original_accuracy,
                "original_ci": self.original_ci, "robust_originals": self.robust_originals,
                "robust_accuracy": self.robust_accuracy, "robust_ci": self.robust_ci,
                "groups": [g.to_json() for g in self.groups],
                "exceptions": [e.to_json() for e in self.exceptions]}


@dataclass
class EvaluationResult:
    """One model's scores on one data set.

    Attributes:
        model: model name; mode: ``"output"`` or ``"input"``; match: ``"execution"`` or ``"exact"``.
        rows: one :class:`RowScore` per scored row, in data-set order.
        pass_at_k: k -> mean pass@k over rows with at least k generations, and rows
            without a prediction scored as wrong (``missing="wrong"``: 0 at every k)
            (fraction in [0, 1], ``None`` when no row enters).  Multiply by 100 for the
            percentages CRUXEval prints.
        pass_at_k_rows: k -> number of rows that entered pass@k.
        accuracy: mean row score (= pass@1 when every row has generations).
        missing: ids of data-set rows without a prediction (skipped unless
            ``missing="wrong"``).
        unmatched: ids of predictions for which the data set has no row (ignored).
        executions: check programs actually run in the sandbox.
        robustness: metrics per transform group, when the data set has variant rows.
        unparsable: generations in which no answer was found (harness logs; scored wrong).
        extraction: harness logs: how the answers were found (status -> generations).
        trivially_true: generations that change meaning without parentheses (``None or
            True``: ``assert OUT == None or True`` always passes); scored as the harness
            scores them unless ``strict``.
        exception_confusion: output mode, when a row raises or an answer names an exception:
            :func:`codemorph.scoring.metrics.exception_confusion` over every generation.
        warnings: sentences for the user (unparsable answers, trivially-true predictions
            without ``--strict``, a mode the predictions contradict, different row sets,
            rejected prediction entries).
        rejects: the prediction entries of the predictions source that could not be read
            (:attr:`PredictionSet.rejects`; shared by every model of the source).  They give
            no prediction: their rows are ``missing`` as a row without any prediction is.
        rejected_rows: ids of data-set rows that are missing and for which an entry of this
            model (or of no model the entry tells) was rejected (a subset of ``missing``).
    """

    model: str
    mode: str
    match: str
    rows: list[RowScore]
    pass_at_k: dict[int, float | None]
    pass_at_k_rows: dict[int, int]
    accuracy: float | None
    missing: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    executions: int = 0
    robustness: Robustness | None = None
    dataset: str = ""
    predictions: str = ""
    unparsable: int = 0
    extraction: dict[str, int] = field(default_factory=dict)
    trivially_true: int = 0
    exception_confusion: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    rejects: list[Any] = field(default_factory=list)
    rejected_rows: list[str] = field(default_factory=list)

    @property
    def model_rejects(self) -> list[Any]:
        """The rejected entries of :attr:`rejects` that belong to this model: those whose
        ``model`` is :attr:`model`, and those that tell no model (a line that is not JSON in a
        file of several models), which may belong to any and count for each."""
        from codemorph.scoring.predictions import reject_model

        return [j for j in self.rejects if reject_model(j) in (None, self.model)]

    def summary(self) -> dict[str, Any]:
        """A JSON-able summary (no per-row data); ``predictions_rejected`` counts
        :attr:`model_rejects`."""
        return {"model": self.model, "mode": self.mode, "match": self.match, "dataset": self.dataset,
                "predictions": self.predictions, "rows_scored": len(self.rows),
                "rows_missing": len(self.missing), "predictions_unmatched": len(self.unmatched),
                "predictions_rejected": len(self.model_rejects), "rows_rejected": len(self.rejected_rows),
                "executions": self.executions, "accuracy": self.accuracy,
                "pass_at_k": {str(k): v for k, v in self.pass_at_k.items()},
                "pass_at_k_rows": {str(k): v for k, v in self.pass_at_k_rows.items()},
                "robustness": self.robustness.to_json() if self.robustness else None,
                "generations_unparsable": self.unparsable, "extraction": self.extraction,
                "trivially_true": self.trivially_true, "exception_confusion": self.exception_confusion,
                "warnings": self.warnings}


# --------------------------------------------------------------------------- rules

def names_exception(prediction: str, exc_type: str, code: str | None = None) -> bool:
    """Whether ``prediction`` names the exception class ``exc_type`` (the rule for
    exception rows, see the module docstring).

    The answer's class is read by :func:`codemorph.scoring.predictions.exception_named`
    (``T``, ``(T)``, ``T('m')``, ``T: message``, a traceback's last line, ``raise T``,
    ``raise T from U``: ``T``, ``raises T``...).  It must be the raised class itself: a base
    class (``LookupError`` for ``IndexError``) or a subclass (``IndexError`` for a raised
    ``LookupError``) is another class, and wrong, as in input mode, where the call must raise
    exactly ``exc_type``.  Another name of the same builtin class counts (``IOError`` and
    ``EnvironmentError`` are ``OSError``).  Module prefixes: ``builtins.T`` names the builtin
    class, so it counts only when ``exc_type`` is a builtin exception that ``code`` (the
    row's program, when given) does not define a class of that name for; another prefix
    (``json.JSONDecodeError``) counts only for a class that is not builtin (the sandbox
    records a class by its ``__name__``, so the module cannot be checked), never for a
    builtin one (``numpy.IndexError`` is not ``IndexError``).

    Args:
        prediction: one generation (an extracted answer).
        exc_type: the raised class's ``__name__``, as the row records it.
        code: the row's program, or ``None``.

    >>> names_exception("IndexError('list index out of range')", "IndexError")
    True
    >>> names_exception("raise IndexError from KeyError", "IndexError")
    True
    >>> names_exception("raise KeyError from IndexError", "IndexError")
    False
    >>> names_exception("(builtins.KeyError)", "KeyError")
    True
    >>> names_exception("raises KeyError", "KeyError")
    True
    >>> names_exception("'IndexError'", "IndexError")
    False
    """
    from codemorph.scoring.predictions import builtin_exception, exception_named

    name = exception_named(prediction)
    if name is None or not exc_type:
        return False
    prefix, _, last = name.rpartition(".")
    raised = builtin_exception(exc_type)
    if prefix == "builtins":
        return (raised is not None and builtin_exception(last) is raised
                and not (code is not None and _defines_class(code, exc_type)))
    if prefix:
        return raised is None and last == exc_type
    if last == exc_type:
        return True
    # another builtin name of the same class (IOError for OSError), unless the program binds
    # either name itself (the raised class, or the answer's name, may then be its own)
    return (raised is not None and builtin_exception(last) is raised
            and not (code is not None and (_defines_class(code, exc_type) or _defines_class(code, last))))


def _defines_class(code: str, name: str) -> bool:
    """Whether ``code`` binds ``name`` to something of its own (a ``class``, an assignment, an
    import), anywhere; parsed, never run (unparsable code: ``True``, nothing is assumed)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return True
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef) and n.name == name:
            return True
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store):
            return True
        if isinstance(n, ast.alias) and (n.asname or n.name.split(".")[0]) == name:
            return True
    return False


def normalize_exact(text: str) -> str:
    """ExeRScope's normalisation for exact matching: strip newlines and whitespace at
    both ends, remove every space, replace ``"`` by ``'``."""
    return text.strip("\n").strip().replace(" ", "").replace('"', "'")


def _is_expression(text: str) -> bool:
    try:
        ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def _calls_of(node: ast.AST, name: str) -> int:
    """Calls of the plain name ``name`` anywhere in ``node``."""
    return sum(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name for n in ast.walk(node))


def _strict_refusal(row: EvalRow, generation: str, mode: str) -> str | None:
    """Why ``--strict`` refuses a generation it could parse (``None``: it does not).
    Output mode: a call of the entry point anywhere in the answer (``f( 2)``, ``[f(1 + 1)][0]``:
    the value computed, not predicted; the harness refuses only the text ``f(<input>)``).
    Input mode on ``args`` rows: anything but one call of the entry point whose arguments
    do not call it (``(f(0), f(2))[1]``, ``f(f(1))``, ``f(2) and f(2)``)."""
    try:
        node = ast.parse(generation.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None  # not an expression: refused as such
    ep = row.entry_point
    if mode == "output":
        return "skip:call-in-output" if _calls_of(node, ep) else None
    if row.input_kind != "args":
        return None
    one = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == ep
    return None if one and _calls_of(node, ep) == 1 else "not-one-call"


#: the check program of an input answer on an exception row (``args`` rows): the answer runs
#: after the program's code; an exception whose traceback passes through no frame of the entry
#: point (its function, a decorator's wrapper bound to its name, ``__wrapped__``, a
#: ``functools.partial``'s ``func``...) is raised
#: again from the line after the answer, so that its innermost line is past the code
#: (``answer-raised``): ``f(helper([]))`` raises in the program's ``helper`` before ``f`` runs
_THROUGH_ENTRY = """{code}
try:
    (
{generation}
    )
except BaseException as _codemorph_e:
    _codemorph_codes, _codemorph_os = [], [globals().get({ep!r})]
    for _codemorph_o in _codemorph_os:
        if len(_codemorph_os) > 100:
            break
        _codemorph_codes += [getattr(_codemorph_o, '__code__', None),
                             getattr(getattr(_codemorph_o, '__call__', None), '__code__', None),
                             getattr(getattr(_codemorph_o, '__init__', None), '__code__', None)]
        _codemorph_os += [getattr(_codemorph_o, '__wrapped__', None), getattr(_codemorph_o, 'func', None)]
    _codemorph_t = _codemorph_e.__traceback__
    while _codemorph_t is not None and not any(_codemorph_t.tb_frame.f_code is _c for _c in _codemorph_codes if _c):
        _codemorph_t = _codemorph_t.tb_next
    if _codemorph_t is None:
        raise _codemorph_e.with_traceback(None)
    raise
"""


def check_program(row: EvalRow, generation: str, mode: str, strict: bool = False) -> str | None:
    """The script that judges ``generation`` on ``row`` by execution, or ``None`` when the
    harness rules refuse the generation without running it (counted as incorrect).

    ``args`` rows (CRUXEval's), both modes, and ``call`` rows in input mode:
    ``f"{code}\\nassert {output} == {generation}"`` (strict:
    ``assert {output} == (\\n{generation}\\n)``, and ``None`` for a generation
    :func:`_strict_refusal` refuses).  ``call`` rows in output mode:
    ``f"{code}\\nassert {input} == {generation}"`` (the row's expression is evaluated
    again; strict parenthesises the generation).  ``stdin`` rows give ``None``: their
    standard output is compared as text (:func:`stdout_verdict`).  Exception rows in input mode:
    ``f"{code}\\n(\\n{generation}\\n)"`` (``args`` rows: inside a ``try`` whose handler raises
    again from its own line an exception that never went through the entry point,
    :data:`_THROUGH_ENTRY`).  Output mode on exception rows is not executed
    (see :func:`names_exception`) and gives ``None``.

    Raises:
        ValueError: unknown ``mode``.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be 'output' or 'input', got {mode!r}")
    ep = row.entry_point
    if row.input_kind == "stdin":
        return None  # the standard output is compared as text (stdout_verdict), nothing runs
    call = row.input if row.input_kind == "call" else f"{ep}({row.input})"
    if mode == "input" and f"{ep}(" not in generation:
        return None
    if mode == "output" and call in generation:
        return None
    if strict and _strict_refusal(row, generation, mode) is not None:
        return None
    if row.input_kind == "call" and row.output is not None and mode == "output":
        # the whole expression is evaluated after the code: assert <input> == <prediction>; an
        # input of statements ending with an expression (perturb's harness method with other
        # literals) runs its statements first, as the sandbox runs it
        before, expr = call_statements(row.input)
        code = f"{row.code}\n{before}" if before else row.code
        if strict:
            if not _is_expression(generation):
                return None
            return f"{code}\nassert {expr} == (\n{generation}\n)"
        return f"{code}\nassert {expr} == {generation}"
    if row.output is None:
        if mode == "output" or not _is_expression(generation):
            return None
        if row.input_kind != "args":
            return f"{row.code}\n(\n{generation}\n)"
        return _THROUGH_ENTRY.format(code=row.code, generation=generation, ep=ep)
    if strict:
        if not _is_expression(generation):
            return None
        return f"{row.code}\nassert {expected_expression(row.output)} == (\n{generation}\n)"
    return f"{row.code}\nassert {expected_expression(row.output)} == {generation}"


def expected_expression(output: str) -> str:
    """A row's expected output as it follows ``assert``: the text stripped, and put in
    parentheses on lines of its own when it holds a line end, a comment or a ``;`` and parses
    as one expression (``4  # four`` made ``assert 4`` of the assertion, right for every
    answer; ``4\\n`` an ``IndentationError``, wrong for every answer); else as it is, as
    CRUXEval's harness puts it (its outputs are one-line reprs: unchanged).

    >>> expected_expression("[1, 2]")
    '[1, 2]'
    >>> expected_expression("4  # four")
    '(\\n4  # four\\n)'
    """
    stripped = output.strip()
    if not any(c in stripped for c in "\n\r#;") or not _cuts_a_line(stripped):
        return stripped
    return f"(\n{stripped}\n)" if _is_expression(stripped) else output


def _cuts_a_line(text: str) -> bool:
    """Whether ``text`` has a comment, a line end outside brackets or a ``;`` as Python
    reads it (not inside a string: ``'a#b'`` has none)."""
    import io
    import tokenize

    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return True
    return any(t.type == tokenize.COMMENT or (t.type == tokenize.OP and t.string == ";")
               or (t.type in (tokenize.NL, tokenize.NEWLINE) and t.string) for t in toks)


def call_statements(text: str) -> tuple[str, str]:
    """A ``call`` row's input split as the sandbox runs it: ``(statements, expression)``, the
    statements (``""`` for none) running first, then the expression whose value is the
    output, ready to follow ``assert``.  A one-line expression is kept as it is (stripped);
    an expression on several lines or with a comment, alone or after statements (``perturb``'s
    harness method with other literals), is put in parentheses on lines of their own, so that
    neither a line end nor a comment cuts the assertion.  ``("", text)`` when ``text`` does not
    parse or does not end with an expression.

    >>> call_statements("class T(T):\\n    x = 2\\nT().test()")
    ('class T(T):\\n    x = 2', '(\\nT().test()\\n)')
    >>> call_statements(" g(1) ")
    ('', 'g(1)')
    """
    stripped = text.strip()
    if not any(c in stripped for c in "\n\r#;"):
        return "", stripped
    try:
        body = ast.parse(stripped).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return "", text
    if not body or not isinstance(body[-1], ast.Expr):
        return "", text
    last = ast.get_source_segment(stripped, body[-1])
    if last is None:
        return "", text
    before = ""
    if len(body) > 1:
        lines = stripped.splitlines(keepends=True)
        prev = body[-2]
        end = sum(len(ln) for ln in lines[:prev.end_lineno - 1]) + len(
            lines[prev.end_lineno - 1].encode("utf-8")[:prev.end_col_offset].decode("utf-8", "replace"))
        before = stripped[:end]
    return before, f"(\n{last}\n)"


def _skip_status(row: EvalRow, generation: str, mode: str, strict: bool = False) -> str:
    ep = row.entry_point
    call = row.input if row.input_kind == "call" else f"{ep}({row.input})"
    if mode == "input" and f"{ep}(" not in generation:
        return "skip:no-call"
    if mode == "output" and call in generation:
        return "skip:call-in-output"
    return (_strict_refusal(row, generation, mode) if strict else None) or "not-expression"


def stdout_verdict(row: EvalRow, generation: str) -> tuple[bool, str]:
    """Output prediction on a ``stdin`` row: the predicted text against the program's
    standard output (``row.output``) under :func:`codemorph.rows.codemind.same_stdout`'s
    whitespace rule (line ends, trailing spaces of a line and trailing empty lines do not
    count).  Statuses ``stdout-match`` / ``stdout-differs``."""
    ok = row.output is not None and same_stdout(row.output, generation)
    return ok, "stdout-match" if ok else "stdout-differs"


def _outcome_status(outcome, exception_row: bool, exception_type: str | None,
                    code_lines: int | None = None) -> tuple[bool, str]:
    """``(correct, status)`` of one check program's outcome.  ``code_lines``: for an
    exception row (input mode), the number of lines of the row's code at the top of the
    check program; an exception whose innermost frame of the check program is below them
    was raised by the answer's own expression (``f([][0])``), not by the program."""
    if exception_row:  # exception row, input mode
        exc = outcome.exception
        if outcome.status == "raised" and exc is not None:
            if code_lines is not None and exc.line is not None and exc.line > code_lines:
                return False, f"answer-raised:{exc.type}"
            return (exc.type == exception_type), f"raised:{exc.type}"
        return False, "returned" if outcome.status == "returned" else outcome.status
    if outcome.status == "returned":
        return True, "pass"
    if outcome.status in ("raised", "bad-code") and outcome.exception is not None:
        return False, f"fail:{outcome.exception.type}"
    return False, outcome.status


# --------------------------------------------------------------------------- scoring

def evaluate_many(rows: Sequence[EvalRow], prediction_sets: Sequence[PredictionSet], *, mode: str = "output",
                  ks: Sequence[int] = (1, 5), match: str = "execution", strict: bool = False,
                  missing: str = "skip", sandbox=None, workers: int = 1, timeout: float = HARNESS_TIMEOUT,
                  seed: int = 0, n_resamples: int = 1000,
                  progress: Callable[[int, int], None] | None = None, executor=None) -> list[EvaluationResult]:
    """Score several models' predictions on the same rows, sharing one sandbox (locally).

    Arguments as in :func:`evaluate_dataset`; returns one result per prediction set, in order.

    Raises:
        ValueError: as :func:`evaluate_dataset`.
    """
    _check_executor(executor, sandbox)
    own = None
    if sandbox is None and match == "execution" and not _is_dask(executor):
        from codemorph.sandbox.pool import Limits, Sandbox
        own = sandbox = Sandbox(Limits(timeout=timeout, recursion_limit=HARNESS_RECURSION_LIMIT,
                                       output=16 << 20), workers=max(1, workers))
    try:
        results = [evaluate_dataset(rows, ps, mode=mode, ks=ks, match=match, strict=strict, missing=missing,
                                    sandbox=sandbox, timeout=timeout, seed=seed, n_resamples=n_resamples,
                                    progress=progress, executor=executor)
                   for ps in prediction_sets]
        _note_row_sets(results)
        return results
    finally:
        if own is not None:
            own.close()


def evaluate_dataset(rows: Sequence[EvalRow], predictions: PredictionSet, *, mode: str = "output",
                     ks: Sequence[int] = (1, 5), match: str = "execution", strict: bool = False,
                     missing: str = "skip", sandbox=None, workers: int = 1, timeout: float = HARNESS_TIMEOUT,
                     seed: int = 0, n_resamples: int = 1000,
                     progress: Callable[[int, int], None] | None = None, executor=None) -> EvaluationResult:
    """Score one model's predictions on ``rows`` (see the module docstring for the rules).

    Args:
        rows: the data set (:func:`codemorph.predictions.load_rows`).
        predictions: the model's generations per row id.
        mode: ``"output"`` (predict the return value) or ``"input"`` (predict a call).
        ks: the k values of pass@k.
        match: ``"execution"`` (CRUXEval's harness) or ``"exact"`` (ExeRScope's string match).
        strict: execution only: require one expression and parenthesise it.
        missing: ``"skip"`` (rows without a prediction are not scored; listed in
            ``missing``) or ``"wrong"`` (scored as one incorrect generation; pass@k 0 at
            every k).
        sandbox: a :class:`codemorph.sandbox.Sandbox` to use; default: a temporary one
            with ``workers`` processes and ``timeout`` seconds per execution.
        workers: sandbox processes of the default sandbox (local runs).
        timeout: seconds per check program (default sandbox, and Dask workers' sandboxes).
        seed, n_resamples: of the bootstrap intervals of the robustness metrics.
        progress: called as ``progress(rows done, rows total)`` while executing.
        executor: ``None`` or a :class:`~codemorph.executors.LocalExecutor` (this
            machine), or a :class:`~codemorph.executors.DaskExecutor`: check programs run
            on the cluster's workers, each worker thread with its own sandbox (``timeout``
            seconds, recursion limit 1000); same scores as a local run.

    Returns:
        An :class:`EvaluationResult`.

    Raises:
        ValueError: bad ``mode``, ``match``, ``missing`` or ``ks``; a ``sandbox`` together
            with a Dask executor (the sandboxes run on the workers).
    """
    _check_executor(executor, sandbox)
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if match not in MATCHES:
        raise ValueError(f"match must be one of {MATCHES}, got {match!r}")
    if missing not in ("skip", "wrong"):
        raise ValueError(f"missing must be 'skip' or 'wrong', got {missing!r}")
    ks = sorted(set(int(k) for k in ks))
    if not ks or ks[0] < 1:
        raise ValueError(f"k values must be >= 1, got {ks}")

    preds = predictions.predictions
    row_ids = {r.id for r in rows}
    scored_rows = [r for r in rows if r.id in preds]
    missing_ids = [r.id for r in rows if r.id not in preds]
    unmatched = sorted(set(preds) - row_ids)

    verdicts: dict[str, list[tuple[bool, str]]] = {}
    executions = 0
    if match == "exact":
        for r in scored_rows:
            verdicts[r.id] = [_exact_verdict(r, g, mode) for g in preds[r.id]]
    else:
        own = None
        if sandbox is None and not _is_dask(executor):
            own = sandbox = _harness_sandbox(timeout, max(1, workers))
        try:
            executions = _execute(scored_rows, preds, mode, strict, sandbox, verdicts, progress, executor, timeout)
        finally:
            if own is not None:
                own.close()

    scores: list[RowScore] = []
    for r in rows:
        if r.id in verdicts:
            v = verdicts[r.id]
            correct, status = [c for c, _ in v], [s for _, s in v]
        elif missing == "wrong":
            correct, status = [False], ["missing"]
        else:
            continue
        scores.append(RowScore(r.id, r.original_id or r.id, r.kind, r.group, r.transforms, r.exception_type,
                               predictions.model, correct, status))

    # a row without a prediction scored as wrong (``missing="wrong"``) has no right
    # generation: pass@k 0 at every k, not only at k = 1 (its one stand-in generation would
    # leave it out of every pass@k with k > 1)
    absent = set(missing_ids) if missing == "wrong" else set()
    counts = [(s.n, s.c) for s in scores if s.n and s.id not in absent]
    pak: dict[int, float | None] = {}
    pak_rows: dict[int, int] = {}
    for k in ks:
        pak[k], pak_rows[k] = mean_pass_at_k(counts, k, zeros=len(absent))
    acc = math.fsum(s.score for s in scores if s.n) / (len(counts) + len(absent)) if counts or absent else None
    rob = robustness(scores, seed=seed, n_resamples=n_resamples) if any(s.kind != "original" or s.exception_type
                                                                          for s in scores) else None
    res = EvaluationResult(predictions.model, mode, match, scores, pak, pak_rows, acc, missing_ids, unmatched,
                           executions, rob, predictions=predictions.source, unparsable=predictions.unparsable,
                           extraction=dict(predictions.extraction), rejects=predictions.rejects)
    rejected_ids = {j.id for j in res.model_rejects if j.id is not None}
    res.rejected_rows = [i for i in missing_ids if i in rejected_ids]
    _diagnose(res, scored_rows, preds, predictions, strict)
    return res


def trivially_true(row: EvalRow, generation: str) -> bool:
    """Whether ``assert OUTPUT == generation`` means something else than
    ``assert OUTPUT == (generation)`` -- e.g. ``None or True``, which passes whatever the
    output, or ``1 if x else 2`` -- so CRUXEval's harness check is not a comparison with the
    generation.  ``--strict`` scores the parenthesised form.  Only parse trees are compared."""
    if row.output is None or row.input_kind == "stdin":
        return False
    try:
        out = expected_expression(row.output)
        loose = ast.dump(ast.parse(f"assert {out} == {generation}"))
        tight = ast.dump(ast.parse(f"assert {out} == (\n{generation}\n)"))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return loose != tight


_NAN_TEXTS = {"nan", "+nan", "-nan"}


def holds_nan(output: str | None) -> bool:
    """Whether an expected output repr holds a NaN (``float('nan')``, alone or inside a
    container): NaN compares unequal to itself, so ``assert OUTPUT == answer`` fails whatever
    the answer.  Parsed with :mod:`ast`, never evaluated."""
    if output is None or "nan" not in output.lower():
        return False
    try:
        tree = ast.parse(output.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "float" and len(n.args) == 1
               and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)
               and n.args[0].value.strip().lower() in _NAN_TEXTS for n in ast.walk(tree))


def names_bare_float(output: str | None, code: str = "") -> bool:
    """Whether an expected output repr uses the name ``inf`` or ``nan`` (``repr`` of an
    infinite or NaN float: ``inf``, ``[1.0, -inf]``) that the program ``code`` does not bind:
    the assertion then raises ``NameError`` whatever the answer.  Parsed, never evaluated."""
    if output is None or ("inf" not in output and "nan" not in output):
        return False
    try:
        tree = ast.parse(output.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in ("inf", "nan")}
    return any(not _defines_class(code, name) for name in used) if used and code else bool(used)


def _diagnose(res: EvaluationResult, rows: Sequence[EvalRow], preds: dict[str, list[str]],
              predictions: PredictionSet, strict: bool) -> None:
    from codemorph.scoring.metrics import exception_confusion
    from codemorph.scoring.predictions import predicted_exception, reject_model

    mode = res.mode
    scored = len(res.rows)
    for k, used in res.pass_at_k_rows.items():
        short = sum(1 for s in res.rows if 0 < s.n < k and s.status != ["missing"])
        if used and short:
            res.warnings.append(f"pass@{k} is over {used} of the {scored} scored rows: the other {short} have fewer "
                                f"than {k} generations and are left out (the estimator needs n >= k; CRUXEval's "
                                f"harness would count each as solved)")
    nan_rows = [r.id for r in rows if r.input_kind != "stdin" and holds_nan(r.output)]
    if nan_rows and res.match == "execution":
        res.warnings.append(f"{len(nan_rows)} rows expect a value holding NaN, which compares unequal to every answer "
                            f"under the assertion (`assert float('nan') == float('nan')` fails): no generation can "
                            f"be right on them, e.g. {nan_rows[:3]}")
    bare = [r.id for r in rows if r.input_kind == "args" and names_bare_float(r.output, r.code)]
    if bare and res.match == "execution":
        res.warnings.append(f"{len(bare)} rows expect an output that names `inf` or `nan` (the repr of an infinite "
                            f"or NaN float), an undefined name in the assertion, as in CRUXEval's harness: no "
                            f"generation can be right on them (write float('inf') in the data set), e.g. {bare[:3]}")
    capped = [s for s in res.rows if "output-limit" in s.status]
    if capped:
        n = sum(st == "output-limit" for s in capped for st in s.status)
        res.warnings.append(f"{n} generations were stopped at the sandbox's output limit (16 MiB written to file "
                            f"descriptor 1 or 2 itself, as os.write(1, ...) does, or a file of that size written) and "
                            f"are scored wrong (status output-limit), where a harness without the limit would run "
                            f"them to the end: rows {[s.id for s in capped][:5]}")
    own = res.model_rejects
    if own:
        gone = set(res.rejected_rows)
        counted = "scored as one wrong generation each" if any(s.id in gone for s in res.rows) else "not scored"
        res.warnings.append(f"{len(own)} prediction entries of {predictions.source} could not be read and "
                            f"were rejected (see the rejects file); {len(res.rejected_rows)} rows have no "
                            f"prediction because of them and count as missing ({counted}, as every missing row)"
                            + (f"; {unknown} of them name no model and count for every model of the file"
                               if (unknown := sum(reject_model(j) is None for j in own)) else ""))
    if res.unparsable:
        total = sum(len(v) for v in preds.values())
        res.warnings.append(f"{res.unparsable} of {total} generations have no answer that could be found "
                            f"(scored wrong): {', '.join(f'{k} {v}' for k, v in res.extraction.items() if k.startswith('unparsable'))}")
    if predictions.mode and predictions.mode != mode:
        res.warnings.append(f"the predictions were made for {predictions.mode} prediction but are scored in {mode} "
                            f"mode; use --mode {predictions.mode}")
    gens = [(r, g) for r in rows for g in preds[r.id] if g.strip()]
    if gens:
        calls = sum(g.strip().startswith(f"{r.entry_point}(") for r, g in gens)
        if mode == "output" and calls == len(gens):
            res.warnings.append(f"every prediction ({calls}) is a call such as {gens[0][1].strip()[:40]!r}: these look "
                                f"like input predictions; use --mode input")
        if mode == "input" and not any(f"{r.entry_point}(" in g for r, g in gens):
            res.warnings.append(f"no prediction of {len(gens)} calls the function: these look like output "
                                f"predictions; use --mode output")
    res.trivially_true = sum(trivially_true(r, g) for r, g in gens) if res.match == "execution" else 0
    if res.trivially_true and not strict:
        res.warnings.append(f"{res.trivially_true} generations make the assertion something else than a comparison "
                            f"(such as `None or True`, true whatever the output) and are scored as CRUXEval's "
                            f"harness scores them; --strict parenthesises each generation")
    if mode == "output":
        pairs = [(r.exception_type, predicted_exception(g)) for r in rows for g in preds[r.id]]
        if any(a or p for a, p in pairs):
            res.exception_confusion = exception_confusion(pairs)


def _note_row_sets(results: Sequence[EvaluationResult]) -> None:
    """Warn when models were scored on different row sets (their figures do not compare)."""
    sets: dict[frozenset, list[str]] = {}
    for r in results:
        sets.setdefault(frozenset(s.id for s in r.rows), []).append(r.model)
    if len(sets) < 2:
        return
    labels = {k: chr(ord("A") + i) for i, k in enumerate(sets)}
    common = frozenset.intersection(*sets)
    for r in results:
        key = frozenset(s.id for s in r.rows)
        r.warnings.append(f"row set {labels[key]}: scored on {len(key)} rows; the {len(results)} models were scored on "
                          f"{len(sets)} different row sets ({len(common)} rows in common), so their figures are "
                          f"not comparable")


def score_generations(row: EvalRow, generations: Sequence[str], mode: str = "output", *, strict: bool = False,
                      sandbox=None, timeout: float = HARNESS_TIMEOUT) -> list[tuple[bool, str]]:
    """Score the generations of one row exactly as :func:`evaluate_dataset` does (same
    rules, same sandboxed check programs); the scorer of the Inspect AI and
    lm-evaluation-harness tasks (:mod:`codemorph.harness`).

    Args:
        row: the data-set row.
        generations: the answers to score (already extracted, see
            :func:`codemorph.scoring.predictions.extract_answer`).
        mode: ``"output"`` or ``"input"``.
        strict: as in :func:`evaluate_dataset`.
        sandbox: a :class:`codemorph.sandbox.Sandbox` (thread-safe; share one across calls);
            default: a temporary one with the harness's limits.
        timeout: seconds per check program of the temporary sandbox.

    Returns:
        One ``(correct, status)`` per generation (statuses as in :class:`RowScore`).

    Raises:
        ValueError: unknown ``mode``.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    gens = list(generations)
    if not gens:
        return []
    verdicts: dict[str, list[tuple[bool, str]]] = {}
    own = None
    if sandbox is None:
        own = sandbox = _harness_sandbox(timeout)
    try:
        _execute([row], {row.id: gens}, mode, strict, sandbox, verdicts, None, timeout=timeout)
    finally:
        if own is not None:
            own.close()
    return verdicts[row.id]


def _exact_verdict(row: EvalRow, generation: str, mode: str) -> tuple[bool, str]:
    # an exception row, output mode: the recorded text when the data set has one (a layout's
    # output.txt `raises T`, compared as ExeRScope compares), else the naming rule; input
    # mode compares the call as on any row
    if row.output is None and mode == "output" and row.recorded_output is None:
        ok = names_exception(generation, row.exception_type or "", row.code)
        return ok, "names-exception" if ok else "no-match"
    if mode == "output":
        target = row.recorded_output if row.recorded_output is not None else (row.output or "")
    else:
        target = row.input if row.input_kind in ("call", "stdin") else f"{row.entry_point}({row.input})"
    ok = normalize_exact(generation) == normalize_exact(target)
    return ok, "exact" if ok else "no-match"


def _is_dask(executor) -> bool:
    from codemorph.jobs.executors import DaskExecutor, LocalExecutor

    if executor is not None and not isinstance(executor, (LocalExecutor, DaskExecutor)):
        raise ValueError(f"executor must be a LocalExecutor or a DaskExecutor, got {type(executor).__name__}")
    return isinstance(executor, DaskExecutor)


def _check_executor(executor, sandbox) -> None:
    if _is_dask(executor) and sandbox is not None:
        raise ValueError("a sandbox runs on this machine: pass either sandbox= or a Dask executor, not both")


def _harness_sandbox(timeout: float, workers: int = 1):
    """A sandbox with the harness's limits: ``timeout`` seconds per check, recursion limit
    1000, 16 MiB of output; ``workers`` processes."""
    from codemorph.sandbox.pool import Limits, Sandbox

    return Sandbox(Limits(timeout=timeout, recursion_limit=HARNESS_RECURSION_LIMIT, output=16 << 20),
                   workers=workers)


def harness_sandbox(timeout: float = HARNESS_TIMEOUT, workers: int = 1):
    """A :class:`codemorph.sandbox.Sandbox` with the limits ``codemorph evaluate`` scores under
    (``timeout`` seconds per check program, recursion limit 1000, 16 MiB of output) and
    ``workers`` processes; for callers of :func:`score_generations` that score many rows.
    Close it (or use it as a context manager) when done."""
    return _harness_sandbox(timeout, workers)


class _Shared:
    """``setup`` of a threads map whose workers all use one caller-owned sandbox."""

    def __init__(self, sandbox) -> None:
        self.sandbox = sandbox

    def __call__(self):
        return self.sandbox


def _run_checks(sandbox, task: tuple[int, bool, str | None, list[Any], int]) -> list[tuple[bool, str]]:
    """One task of a map: run the check programs ``task[3]`` of one row in one sandbox
    batch; ``task[:3]``: the row's index, whether it is an exception row, and its exception
    class; ``task[4]``: the lines of the row's code at the top of each check program.
    Returns one ``(correct, status)`` per program."""
    from codemorph.sandbox.kinds import request_for
    from codemorph.sandbox.pool import ExecRequest

    _, exception_row, exception_type, codes, code_lines = task
    requests = [ExecRequest(swallow_output(code), args=None) if isinstance(code, str)
                else request_for(code[1], "__main__", "stdin", code[2]) for code in codes]
    outcomes = sandbox.run_batch(requests)
    # swallow_output put one line into the program's code: its code ends a line further down
    return [_outcome_status(o, exception_row, exception_type, code_lines + 1) if isinstance(code, str)
            else _stdin_status(o, code[3], code[4]) for code, o in zip(codes, outcomes)]


#: the line :func:`swallow_output` puts before a check program: what the program writes to
#: ``sys.stdout`` / ``sys.stderr`` goes to one in-memory text buffer, as in CRUXEval's harness
#: (``swallow_io``: ``contextlib.redirect_stdout`` / ``redirect_stderr`` to a ``StringIO``);
#: it binds no name in the program's globals
SWALLOW_LINE = "__import__('sys').stdout = __import__('sys').stderr = __import__('io').StringIO()"


#: a program that may begin with a docstring (kept first, so that ``__doc__`` stays the program's)
_STRING_START = re.compile(r"\s*[rRbBuUfF]{0,2}['\"]")


def swallow_output(program: str) -> str:
    """``program`` (a check program of :func:`check_program`) with :data:`SWALLOW_LINE` before
    its first statement, or after its docstring and ``from __future__`` imports, which must
    come first: one more line.  CRUXEval's harness runs the check program with standard output and error
    redirected to a ``StringIO`` it never reads, so what the program writes neither counts nor
    is limited (but by memory); run as it is, the sandbox would keep the output and stop a
    program past its output limit (16 MiB), scoring ``output-limit`` (wrong) an assertion the
    harness scores.  Writes to file descriptor 1 or 2 themselves (``os.write(1, ...)``) still
    reach the sandbox's limit (:func:`_diagnose` warns about them)."""
    if "__future__" not in program and not _STRING_START.match(program):
        return f"{SWALLOW_LINE}\n{program}"
    try:
        body = ast.parse(program).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return f"{SWALLOW_LINE}\n{program}"
    after = 0  # the last line of the leading docstring and future imports
    for i, node in enumerate(body):
        if (isinstance(node, ast.ImportFrom) and node.module == "__future__") or (
                i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            after = node.end_lineno or after
            continue
        break
    lines = program.split("\n")
    return "\n".join(lines[:after] + [SWALLOW_LINE] + lines[after:])


def _stdin_status(outcome, expected: str | None, exception_type: str | None = None) -> tuple[bool, str]:
    """A predicted standard input's run: correct iff the program ends normally and writes
    ``expected`` (:func:`~codemorph.rows.codemind.same_stdout`), or, for an exception row,
    raises exactly ``exception_type``."""
    if exception_type is not None:
        exc = outcome.exception
        if outcome.status == "raised" and exc is not None:
            return exc.type == exception_type, f"raised:{exc.type}"
        return False, outcome.status
    if outcome.status != "returned":
        if outcome.status == "raised" and outcome.exception is not None:
            return False, f"fail:{outcome.exception.type}"
        return False, outcome.status
    ok = expected is not None and same_stdout(expected, outcome.stdout or "")
    return ok, "stdout-match" if ok else "stdout-differs"


def _execute(rows: Sequence[EvalRow], preds: dict[str, list[str]], mode: str, strict: bool, sandbox,
             verdicts: dict[str, list[tuple[bool, str]]],
             progress: Callable[[int, int], None] | None, executor=None, timeout: float = HARNESS_TIMEOUT) -> int:
    from functools import partial

    from codemorph.jobs.executors import map_rows

    plans: list[tuple[EvalRow, list[str | None], list[str]]] = []
    for r in rows:
        gens = preds[r.id]
        programs: list[str | None] = []
        for g in gens:
            programs.append(check_program(r, g, mode, strict))
        unique = list(dict.fromkeys(p for p in programs if p is not None))
        plans.append((r, programs, unique))
        if r.input_kind == "stdin" and (mode == "input" or r.output is not None):
            if mode == "output":
                verdicts[r.id] = [stdout_verdict(r, g) for g in gens]
                plans[-1] = (r, programs, [])
            else:  # the predicted standard input is run; it must write the row's output (or raise its class)
                # read as the data set's input.txt is (read_stdin_text): a final line end when the
                # last line has none, which a stripped prediction (predict.txt) lacks
                programs = [("stdin", r.code, read_stdin_text(g), r.output, r.exception_type) for g in gens]
                plans[-1] = (r, programs, list(dict.fromkeys(programs)))
        elif r.output is None and mode == "output":
            named = [names_exception(g, r.exception_type or "", r.code) for g in gens]
            verdicts[r.id] = [(ok, "names-exception" if ok else "no-match") for ok in named]

    todo = [(r, programs, unique) for r, programs, unique in plans if unique]
    # a row's distinct checks go in chunks of BATCH_SIZE so that slow (timing-out) checks of
    # one row spread over the workers instead of queueing in one batch
    chunks = [(i, unique[j:j + BATCH_SIZE]) for i, (_, _, unique) in enumerate(todo)
              for j in range(0, len(unique), BATCH_SIZE)]
    tasks = ((i, todo[i][0].output is None, todo[i][0].exception_type, codes, todo[i][0].code.count("\n") + 1)
             for i, codes in chunks)
    if _is_dask(executor):
        results = map_rows(_run_checks, tasks, executor, setup=partial(_harness_sandbox, timeout), passthrough=None)
    else:  # one sandbox with its own worker processes, fed by as many host threads
        results = map_rows(_run_checks, tasks, setup=_Shared(sandbox), workers=sandbox.workers, local="threads",
                           passthrough=None, close=False, window=2 * sandbox.workers)
    total = len(todo)
    executions = 0
    pending: dict[int, dict[str, tuple[bool, str]]] = {}
    done = 0
    for (i, _, _, codes, _), statuses in results:
        r, programs, unique = todo[i]
        executions += len(statuses)
        by_code = pending.setdefault(i, {})
        by_code.update(zip(codes, statuses))
        if len(by_code) < len(unique):
            continue
        del pending[i]
        gens = preds[r.id]
        verdicts[r.id] = [by_code[p] if p is not None else (False, _skip_status(r, g, mode, strict))
                          for p, g in zip(programs, gens)]
        done += 1
        if progress is not None:
            progress(done, total)
    for r, programs, unique in plans:
        if r.id not in verdicts:  # every generation refused by the rules
            verdicts[r.id] = [(False, _skip_status(r, g, mode, strict)) for g in preds[r.id]]
    return executions


# --------------------------------------------------------------------------- robustness

def robustness(scores: Sequence[RowScore], *, seed: int = 0, n_resamples: int = 1000) -> Robustness:
    """Robustness metrics of one model from its row scores (see :class:`Robustness`).

    Accuracies are mean row scores ``c / n``.  Robust accuracy and flip rate are *paired*:
    generation ``i`` of an original is compared with generation ``i`` of each of its variants
    (``i`` below the fewest generations among them), not as independent draws -- identical
    predictions on an original and its variant give a flip rate of 0 and a robust accuracy
    equal to the accuracy.  For one generation per row these are the usual counts.
    Bootstrap intervals resample originals
    (each with all its variants) ``n_resamples`` times with ``random.Random(seed)``.
    """
    by_orig: dict[str, dict[str, Any]] = defaultdict(lambda: {"orig": None, "variants": defaultdict(list)})
    for s in scores:
        if s.n == 0:
            continue
        entry = by_orig[s.original_id]
        if s.kind == "original":
            entry["orig"] = list(s.correct)
        else:
            entry["variants"][s.group].append(list(s.correct))

    originals = [_score(e["orig"]) for e in by_orig.values() if e["orig"] is not None]
    o_acc = math.fsum(originals) / len(originals) if originals else None
    o_ci = bootstrap_ci(originals, _mean, n_resamples=n_resamples, seed=seed) if originals else None

    group_names = sorted({g for e in by_orig.values() for g in e["variants"]})
    groups = []
    for gi, g in enumerate(group_names):
        clusters = [(e["orig"], e["variants"][g]) for e in by_orig.values()
                    if e["orig"] is not None and e["variants"].get(g)]
        if not clusters:
            continue
        stats = _group_stats(clusters)
        gseed = seed + 7919 * (gi + 1)
        groups.append(GroupStats(
            g, stats["rows"], len(clusters), stats["accuracy"], stats["original_accuracy"], stats["abs_drop"],
            stats["rel_drop"], stats["robust"], stats["flip"],
            accuracy_ci=bootstrap_ci(clusters, lambda cs: _group_stats(cs)["accuracy"], n_resamples=n_resamples,
                                     seed=gseed),
            abs_drop_ci=bootstrap_ci(clusters, lambda cs: _group_stats(cs)["abs_drop"], n_resamples=n_resamples,
                                     seed=gseed + 1),
            robust_ci=bootstrap_ci(clusters, lambda cs: _group_stats(cs)["robust"], n_resamples=n_resamples,
                                   seed=gseed + 2),
            flip_ci=bootstrap_ci(clusters, lambda cs: _group_stats(cs)["flip"], n_resamples=n_resamples,
                                 seed=gseed + 3)))

    all_clusters = [(e["orig"], [v for vs in e["variants"].values() for v in vs]) for e in by_orig.values()
                    if e["orig"] is not None and e["variants"]]
    r_acc = _group_stats(all_clusters)["robust"] if all_clusters else None
    r_ci = bootstrap_ci(all_clusters, lambda cs: _group_stats(cs)["robust"], n_resamples=n_resamples,
                        seed=seed + 1) if all_clusters else None

    exc: dict[str, list[float]] = defaultdict(list)  # per exception class: mean row scores
    for s in scores:
        if s.exception_type and s.n:
            exc[s.exception_type].append(s.score)
    exceptions = []
    for t in sorted(exc):
        vals = exc[t]
        acc = math.fsum(vals) / len(vals)
        exceptions.append(ExceptionStats(t, len(vals), acc, wilson_interval(acc * len(vals), len(vals))))
    return Robustness(len(originals), o_acc, o_ci, groups, len(all_clusters), r_acc, r_ci, exceptions)


def _mean(xs: Sequence[float]) -> float | None:
    return math.fsum(xs) / len(xs) if xs else None


def _score(correct: Sequence[bool]) -> float:
    return sum(correct) / len(correct)


def _paired_robust(orig: Sequence[bool], variants: Sequence[Sequence[bool]]) -> float:
    m = min([len(orig)] + [len(v) for v in variants])
    return sum(orig[i] and all(v[i] for v in variants) for i in range(m)) / m


def _paired_flip(orig: Sequence[bool], variant: Sequence[bool]) -> float:
    m = min(len(orig), len(variant))
    return sum(orig[i] != variant[i] for i in range(m)) / m


def _group_stats(clusters: Sequence[tuple[list[bool], list[list[bool]]]]) -> dict[str, Any]:
    """Accuracy, drop and the paired robust accuracy / flip rate of clusters
    ``(original's correctness per generation, [each variant's correctness per generation])``."""
    pairs = [(o, v) for o, vs in clusters for v in vs]
    n = len(pairs)
    acc = math.fsum(_score(v) for _, v in pairs) / n
    oacc = math.fsum(_score(o) for o, _ in pairs) / n
    robust = math.fsum(_paired_robust(o, vs) for o, vs in clusters) / len(clusters)
    flip = math.fsum(_paired_flip(o, v) for o, v in pairs) / n
    drop = oacc - acc
    return {"rows": n, "accuracy": acc, "original_accuracy": oacc, "abs_drop": drop,
            "rel_drop": drop / oacc if oacc else None, "robust": robust, "flip": flip}


# --------------------------------------------------------------------------- files

def evaluate_paths(dataset: str | os.PathLike[str], predictions: str | os.PathLike[str], *,
                   fmt: str = "auto", model: str | None = None, bench: str | None = None,
                   **kwargs: Any) -> list[EvaluationResult]:
    """Read a data set and predictions from disk and score every model found.

    Args:
        dataset: JSON Lines data set or CodeMind ``dataset/<bench>`` folder.
        predictions: a predictions file or CodeMind folder (see
            :func:`codemorph.predictions.load_predictions`).
        fmt, model, bench: passed to :func:`~codemorph.predictions.load_predictions`.
        **kwargs: passed to :func:`evaluate_many` (mode, ks, match, strict, missing,
            workers, timeout, seed, n_resamples, progress, sandbox, executor).

    Malformed prediction entries are not read: they are in each result's
    :attr:`EvaluationResult.rejects` (:func:`write_rejects` writes them) and their rows count
    as missing.

    Raises:
        InputError: unreadable data set, or predictions that cannot be read as a whole.
    """
    rows = load_rows(dataset, bench=bench)
    sets = load_predictions(predictions, fmt=fmt, model=model, bench=bench)
    results = evaluate_many(rows, sets, **kwargs)
    for r in results:
        r.dataset = str(dataset)
    return results


def write_scores(results: Iterable[EvaluationResult], path: str | os.PathLike[str]) -> Path:
    """Write every row score of ``results`` as JSON Lines (one :meth:`RowScore.to_json`
    object per line, with ``mode`` and ``match``), the input of ``codemorph analyze``.
    The file is written whole and renamed into place, so two runs writing the same path
    leave one complete file (the later run's), never a mix.

    Raises:
        InputError: the output folder does not exist.
    """
    p = Path(path)
    if not p.parent.exists():
        raise InputError(f"{p.parent}: output folder does not exist")
    _replace_text(p, "".join(json.dumps({**s.to_json(), "mode": res.mode, "match": res.match}) + "\n"
                             for res in results for s in res.rows))
    return p


def prediction_rejects(results: Iterable[EvaluationResult]) -> list[Any]:
    """The rejected prediction entries of ``results`` (:attr:`EvaluationResult.rejects`),
    each once although every model of a source shares them, in source then file order."""
    seen: set[int] = set()
    out = []
    for res in results:
        if id(res.rejects) not in seen:
            seen.add(id(res.rejects))
            out.extend(res.rejects)
    return out


def write_rejects(results: Iterable[EvaluationResult], path: str | os.PathLike[str]) -> Path:
    """Write :func:`prediction_rejects` of ``results`` as JSON Lines, one
    :meth:`codemorph.rows.schema.Reject.to_json` object per rejected entry (``{"id", "line",
    "stage", "reason", "row", "file", "model"}``, the schema of ``generate``'s rejects and the
    model the entry belongs to, ``null`` when the entry does not tell); an empty file when none
    was rejected.

    Raises:
        InputError: the output folder does not exist.
        OutputWriteError: the file could not be written (a full disk, a quota).
    """
    p = Path(path)
    if not p.parent.exists():
        raise InputError(f"{p.parent}: output folder does not exist")
    _replace_text(p, "".join(json.dumps(j.to_json()) + "\n" for j in prediction_rejects(results)))
    return p


def _replace_text(p: Path, text: str) -> None:
    # written whole, then renamed over ``p``: two runs writing the same file leave one run's
    # complete file, never an interleaving of both (these files are written once, at the end);
    # a path that is not a regular file (/dev/null, /dev/full, a fifo) is written to as it is:
    # renamed over, /dev/null itself would become a regular file
    try:
        if p.exists() and not p.is_file():
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(text)
            return
        tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, p)
        finally:
            tmp.unlink(missing_ok=True)
    except OSError as exc:  # a full disk, a quota: "cannot write <p>: <why>"
        raise OutputWriteError(p, exc) from None


def write_summary(results: Iterable[EvaluationResult], path: str | os.PathLike[str]) -> Path:
    """Write ``[result.summary() ...]`` as one JSON document.

    Raises:
        InputError: the output folder does not exist.
    """
    p = Path(path)
    if not p.parent.exists():
        raise InputError(f"{p.parent}: output folder does not exist")
    _replace_text(p, json.dumps([r.summary() for r in results], indent=2) + "\n")
    return p


def read_scores(path: str | os.PathLike[str]) -> dict[str, list[RowScore]]:
    """Read a file written by :func:`write_scores`: model -> row scores (file order).

    A model scored in several modes (or match kinds) in the same file gets one entry per
    run, named ``"<model> (<mode>, <match>)"``.

    Raises:
        InputError: missing file, bad JSON or a line without ``id``/``correct``.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file (scored results)")
    runs: dict[tuple[str, str, str], list[RowScore]] = defaultdict(list)
    with open(p, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
                s = RowScore.from_json(d)
            except KeyError as exc:
                raise InputError(f"{p}:{lineno}: not a scored row: missing field {exc} (expected the -o output "
                                 f"of `codemorph evaluate`)") from None
            except (json.JSONDecodeError, TypeError, ValueError, AttributeError) as exc:
                raise InputError(f"{p}:{lineno}: not a scored row ({exc}; expected the -o output of "
                                 f"`codemorph evaluate`)") from None
            runs[(s.model or p.stem, str(d.get("mode") or ""), str(d.get("match") or ""))].append(s)
    if not runs:
        raise InputError(f"{p}: no scored rows")
    per_model: dict[str, int] = defaultdict(int)
    for model, _, _ in runs:
        per_model[model] += 1
    return {(model if per_model[model] == 1 else f"{model} ({mode}, {match})"): rows
            for (model, mode, match), rows in runs.items()}
