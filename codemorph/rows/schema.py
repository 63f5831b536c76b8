"""The one row schema: every row codemorph writes, as a dataclass.

``generate`` writes :class:`OriginalRow` and :class:`VariantRow` rows, ``perturb`` (and
``generate --perturb-inputs``) :class:`PerturbationRow` rows; every job writes its rejects
as :class:`Reject` (an input row that could not be processed), :class:`VariantReject` (a
variant that verification or execution rejected) or :class:`TransformReject` (a transform
that raised).  ``to_json()`` gives the JSON object written, with the keys in the order the
files have always had them; the input row's extra columns (:attr:`SourceRow.extra
<codemorph.rows.dataset.SourceRow.extra>`, those codemorph does not read) come first and
unchanged, and a column named like one of codemorph's own fields holds codemorph's value.

The field tables are in README.md ("Output schema", "Input perturbation", the rejects file).
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from typing import Any

__all__ = ["OriginalRow", "VariantRow", "PerturbationRow", "Reject", "VariantReject", "TransformReject",
           "row_json", "row_reject", "internal_reject", "parse_problem", "exception_site"]


def _with_kind(d: dict[str, Any], kind: str) -> dict[str, Any]:
    """``d`` with ``input_kind`` right after ``entry_point`` when ``kind`` is not ``"args"``
    (rows of ``args`` rows carry no such field, so CRUXEval outputs stay as they were)."""
    if kind == "args":
        return d
    out: dict[str, Any] = {}
    for k, v in d.items():
        if k != "input_kind":
            out[k] = v
        if k == "entry_point":
            out["input_kind"] = kind
    return out


def _with_recipe(d: dict[str, Any], recipe: dict[str, str] | None) -> dict[str, Any]:
    if recipe is not None:
        d["recipe"] = recipe
    return d


@dataclass(frozen=True)
class OriginalRow:
    """A re-executed source row (``kind`` ``"original"``).

    Attributes:
        id, code, input, output, entry_point: as in CRUXEval (``output``: the ``repr`` of the
            re-executed result, or the recorded text when that repr is no literal).
        original_id: the row's own id; transforms: always empty; seed: the run's master seed.
        extra: the input row's extra columns (written first); recipe: ``{"name", "version"}``
            with ``generate --recipe`` (written last), else ``None`` (not written).
        input_kind: the row's kind (written after ``entry_point`` unless ``"args"``).
    """

    id: str
    code: str
    input: str
    output: str
    entry_point: str
    original_id: str
    seed: int
    extra: dict[str, Any] = field(default_factory=dict)
    recipe: dict[str, str] | None = None
    input_kind: str = "args"

    def to_json(self) -> dict[str, Any]:
        """The row as written (a new dict)."""
        return _with_recipe(_with_kind({**self.extra, "id": self.id, "code": self.code, "input": self.input,
                                        "output": self.output, "entry_point": self.entry_point,
                                        "original_id": self.original_id, "transforms": [], "seed": self.seed,
                                        "kind": "original"}, self.input_kind), self.recipe)


@dataclass(frozen=True)
class VariantRow:
    """A verified transform variant (``kind`` ``"code-transform"``).

    Attributes:
        id: ``<original id>:<variant name>``; code: the rewritten source; input: the row's
            input; output: ``repr`` of the variant's own result on it; entry_point: the
            (possibly renamed) function to call; original_id: the source row's id;
            transforms: names of the transforms applied, in order; seed: master seed;
            verification: ``{"status", "inputs", "proved", "coverage"}``; sites: places
            changed (int); extra, recipe, input_kind: as for :class:`OriginalRow`.
    """

    id: str
    code: str
    input: str
    output: str
    entry_point: str
    original_id: str
    transforms: list[str]
    seed: int
    verification: dict[str, Any]
    sites: int
    extra: dict[str, Any] = field(default_factory=dict)
    recipe: dict[str, str] | None = None
    input_kind: str = "args"

    def to_json(self) -> dict[str, Any]:
        """The row as written (a new dict)."""
        return _with_recipe(_with_kind({**self.extra, "id": self.id, "code": self.code, "input": self.input,
                                        "output": self.output, "entry_point": self.entry_point,
                                        "original_id": self.original_id, "transforms": self.transforms,
                                        "seed": self.seed, "verification": self.verification, "sites": self.sites,
                                        "kind": "code-transform"}, self.input_kind), self.recipe)


@dataclass(frozen=True)
class PerturbationRow:
    """An input perturbation (``kind`` ``"input-perturbation"``; schema in
    :mod:`codemorph.jobs.perturb`).

    Attributes:
        id: ``<original id>:perturb:<target>:<n>``; original_id; code (unchanged); input
            (the new argument list); entry_point; output: ``repr`` of the result, or
            ``None`` when it raises; exception: ``{"type", "message", "line"}`` or ``None``;
            target: class name or ``output-change``; seed_input: the row's own input;
            distance: edit operations (int); strategy; type_changing (bool); seed; extra;
            input_kind: as for :class:`OriginalRow` (a ``stdin`` row's ``input`` is the new
            standard input and ``output`` the standard output).
    """

    id: str
    original_id: str
    code: str
    input: str
    entry_point: str
    output: str | None
    exception: dict[str, Any] | None
    target: str
    seed_input: str
    distance: int
    strategy: str
    type_changing: bool
    seed: int
    extra: dict[str, Any] = field(default_factory=dict)
    input_kind: str = "args"

    def to_json(self) -> dict[str, Any]:
        """The row as written (a new dict)."""
        return _with_kind({**self.extra, "id": self.id, "kind": "input-perturbation", "original_id": self.original_id,
                           "code": self.code, "input": self.input, "entry_point": self.entry_point,
                           "output": self.output, "exception": self.exception, "target": self.target,
                           "seed_input": self.seed_input, "distance": self.distance, "strategy": self.strategy,
                           "type_changing": self.type_changing, "seed": self.seed}, self.input_kind)


@dataclass(frozen=True)
class Reject:
    """A row that could not be processed.

    Attributes:
        id: the row id when known, else ``None``.
        line: 1-based line in the input file (Parquet: 1-based row number).
        stage: where it failed: ``read``, ``parse``, ``input``, ``execute``, ``verify``,
            ``internal`` (an unexpected exception of codemorph's own code)...
        reason: what was wrong and what was expected.
        row: the row as read (a dict), or the raw text when it was not JSON, so nothing is lost.
        file: the input file of the row (``None`` when unknown); written as ``file``.
        detail: more fields written after the others (``internal``: ``exception``,
            ``message``, ``where``); ``None`` for none.
    """

    id: str | None
    line: int
    stage: str
    reason: str
    row: Any = None
    file: str | None = None
    detail: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The reject as written: ``{"id", "line", "stage", "reason", "row"}``, then ``file``
        when known, then :attr:`detail`."""
        d = {"id": self.id, "line": self.line, "stage": self.stage, "reason": self.reason, "row": self.row}
        if self.file is not None:
            d["file"] = self.file
        if self.detail:
            d.update(self.detail)
        return d


_NO_COUNTEREXAMPLE = object()


@dataclass(frozen=True)
class VariantReject:
    """A variant that was built but not written (``kind`` ``"variant"``).

    Attributes:
        id: the variant's id; original_id; line: the source row's line; stage: ``verify``
            (verification found a difference or could not decide) or ``execute`` (the
            variant did not return the recorded output on the row's input); reason; code:
            the variant's source; counterexample: for ``verify``, the counterexample JSON
            or ``None`` (``execute`` rejects have no such key).
    """

    id: str
    original_id: str
    line: int
    stage: str
    reason: str
    code: str
    counterexample: Any = _NO_COUNTEREXAMPLE

    def to_json(self) -> dict[str, Any]:
        """The reject as written."""
        d = {"id": self.id, "original_id": self.original_id, "line": self.line, "stage": self.stage,
             "reason": self.reason, "code": self.code}
        if self.counterexample is not _NO_COUNTEREXAMPLE:
            d["counterexample"] = self.counterexample
        d["kind"] = "variant"
        return d


@dataclass(frozen=True)
class TransformReject:
    """A variant not built because a transform raised (stage ``transform``, ``kind``
    ``"variant"``): :meth:`Transform.apply <codemorph.engine.transform.Transform.apply>`
    caught the exception; the row's other variants are built as usual.

    Attributes:
        id: the variant's id; original_id; line, file: where the source row is; reason: a
            sentence naming all of it; transform: the transform's name; distribution: the
            package that registered it (``"codemorph"`` for built-ins, ``""`` unknown);
            exception: the exception's class name; message: ``str(exception)``.
    """

    id: str
    original_id: str
    line: int
    file: str | None
    reason: str
    transform: str
    distribution: str
    exception: str
    message: str

    def to_json(self) -> dict[str, Any]:
        """The reject as written."""
        return {"id": self.id, "original_id": self.original_id, "line": self.line, "file": self.file,
                "stage": "transform", "reason": self.reason, "transform": self.transform,
                "distribution": self.distribution, "exception": self.exception, "message": self.message,
                "kind": "variant"}


def row_json(row: Any) -> dict[str, Any]:
    """A :class:`~codemorph.rows.dataset.SourceRow` as a JSON object again (its extra
    fields, then the standard ones)."""
    d = {**row.extra, "id": row.id, "code": row.code, "input": row.input, "output": row.output,
         "entry_point": row.entry_point}
    kind = getattr(row, "input_kind", "args")
    if kind != "args":
        d["input_kind"] = kind
    return d


def row_reject(row: Any, stage: str, reason: str, detail: dict[str, Any] | None = None) -> Reject:
    """The :class:`Reject` of a source row (a :class:`~codemorph.rows.dataset.SourceRow`):
    its reason reads ``row '<id>' (<place>): <reason>``, with the row as read."""
    return Reject(row.id, row.line, stage, f"row {row.id!r} ({row.place}): {reason}", row_json(row), file=row.file,
                  detail=detail)


def exception_site(exc: BaseException) -> str:
    """Where ``exc`` was raised: ``"path/to/module.py:LINE in FUNCTION"`` of the innermost
    frame of its traceback (the path from the ``codemorph`` package on, when inside it);
    ``"?"`` without a traceback."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    f = frames[-1]
    path = f.filename.replace("\\", "/")
    k = path.rfind("/codemorph/")
    if k != -1:
        path = path[k + 1:]
    return f"{path}:{f.lineno} in {f.name}"


def internal_reject(row: Any, exc: Exception) -> Reject:
    """The ``internal`` :class:`Reject` of a source row whose processing raised ``exc``
    (a codemorph bug, or a plugin's): exception class, message and where it was raised."""
    where = exception_site(exc)
    return row_reject(row, "internal", f"internal error: {type(exc).__name__}: {exc} (at {where}); the run went on",
                      detail={"exception": type(exc).__name__, "message": str(exc), "where": where})


def parse_problem(exc: Any) -> str:
    """The reason text of a row whose code does not parse (a
    :class:`~codemorph.errors.ParseError`): ``code does not parse: line L, column C: ...``,
    without the position when it is unknown."""
    at = f"line {exc.line}, column {exc.column}: " if exc.line is not None else ""
    return f"code does not parse: {at}{exc.message}"
