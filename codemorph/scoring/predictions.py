"""Readers for model predictions and for the data sets they answer.

Three prediction formats are read (:func:`load_predictions` picks one from the path):

* **CRUXEval native generations** (a ``.json`` file): ``{"sample_0": ["...", ...], ...}``,
  one list of generations per row id, as written by CRUXEval's inference scripts and read
  by its ``evaluation/evaluate_generations.py``.  A bare string is taken as a one-element list.
  Generations are kept byte for byte (the harness does not strip them either).
* **CodeMind / ExeRScope folders**: ``Experiment_Results/ER/<model>/<bench>/<id>/predict.txt``
  next to ``dataset/<bench>/<id>/{main.py,input.txt,output.txt}``.  ``predict.txt`` holds
  one prediction surrounded by blank lines; it is stripped of surrounding whitespace.  An
  id folder without ``predict.txt`` has no prediction.  The path may be the layout root,
  ``Experiment_Results``, ``Experiment_Results/ER``, one model folder or one bench folder.
* **JSON Lines** (a ``.jsonl`` file): ``{"id": ..., "prediction": "..." | ["...", ...]}``
  per line, optionally with ``"model"`` (rows of several models may share a file).

* **Inspect AI eval logs** (a ``.eval`` file, or an Inspect ``.json`` log): the samples of a
  run of the task ``codemorph/execution_prediction`` (or any task whose samples carry
  ``metadata["id"]``, else the sample id); one generation per epoch (epoch order).  Needs
  ``inspect-ai`` (``codemorph[inspect]``).
* **lm-evaluation-harness ``--log_samples`` output** (``samples_<task>_<time>.jsonl``): one
  line per document, ``doc["id"]`` the row id, ``resps`` the generations (every repeat).

The raw completions of both harness logs go through :func:`extract_answer` (the extraction the
harness tasks score with); unparsable ones become ``""`` (scored wrong) and are counted in
:attr:`PredictionSet.unparsable`.  The log's prediction mode is kept in
:attr:`PredictionSet.mode`.

A malformed prediction entry costs that entry, never the read: a JSON Lines line (or an
lm-eval sample) that is not UTF-8, not JSON, not of the expected shape or a second prediction
for an id, and a CRUXEval generations entry that is not a list of strings, become a
:class:`~codemorph.rows.schema.Reject` (stage ``read``; file, line, the row id when readable,
the reason naming what was expected, the entry as read, and the model it belongs to,
:func:`reject_model`) in :attr:`PredictionSet.rejects`;
the rest of the file is read.  A reader raises :class:`~codemorph.InputError` (with the file)
only when the source as a whole cannot be read: a missing path, an unknown format, a
CRUXEval ``.json`` that is not one JSON object, an Inspect log that does not load, or a file
from which no prediction at all could be read (empty, or every entry rejected).
"""

from __future__ import annotations

import ast
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codemorph.errors import InputError
from codemorph.rows.codemind import codemind_benches, read_codemind_records
from codemorph.rows.schema import Reject

__all__ = [
    "PredictionSet",
    "EvalRow",
    "load_predictions",
    "read_cruxeval_generations",
    "read_jsonl_predictions",
    "read_codemind_predictions",
    "read_inspect_log",
    "read_lm_eval_samples",
    "load_rows",
    "read_jsonl_rows",
    "read_codemind_dataset",
    "find_codemind_dataset",
    "call_arguments",
    "Answer",
    "extract_answer",
    "predicted_exception",
    "exception_named",
    "builtin_exception",
    "reject_model",
]


@dataclass
class PredictionSet:
    """The predictions of one model on one data set.

    Attributes:
        model: model name (from the folder name, the ``model`` field, or the file stem).
        predictions: row id -> generations, in the order given (each a str).
        source: where they were read from (a path, for messages and reports).
        format: ``"cruxeval"``, ``"codemind"``, ``"jsonl"``, ``"inspect"`` or ``"lm-eval"``.
        bench: for the CodeMind layout, the bench folder name (e.g. ``"cruxeval"``).
        mode: the prediction mode the source was made for (harness logs), else ``None``.
        unparsable: generations in which no answer was found (harness logs; kept as ``""``).
        extraction: harness logs: :attr:`Answer.status` -> number of generations.
        rejects: the prediction entries of :attr:`source` that could not be read (one
            :class:`~codemorph.rows.schema.Reject` each, in file order); every set read from
            the same file shares this list, since a malformed entry may name no model.
    """

    model: str
    predictions: dict[str, list[str]]
    source: str = ""
    format: str = ""
    bench: str | None = None
    mode: str | None = None
    unparsable: int = 0
    extraction: dict[str, int] = field(default_factory=dict)
    rejects: list[Reject] = field(default_factory=list)


@dataclass(frozen=True)
class EvalRow:
    """One data-set row as seen by the scorer.

    Attributes:
        id: row id.
        code: program source.
        input: argument-list literal (the call is ``entry_point(<input>)``), the whole
            expression of a ``call`` row, or the standard input of a ``stdin`` row.
        output: repr of the expected return value (a ``stdin`` row: its standard output),
            or ``None`` for an exception row.
        entry_point: function name (``"f"`` for CRUXEval).
        original_id: id of the original program (``id`` itself for originals).
        kind: ``"original"``, ``"code-transform"`` or ``"input-perturbation"``.
        transforms: names of the transforms applied (empty for originals).
        exception_type: class name of the exception the call raises (exception rows), else ``None``.
        extra: every other field of the row.
        input_kind: how the program is run: ``"args"`` (``entry_point(<input>)``), ``"call"``
            (``input`` is a whole expression evaluated after the code) or ``"stdin"`` (the
            program runs as ``__main__`` with ``input`` as its standard input; ``output`` is
            its standard output, verbatim text).
        recorded_output: the output text as the data set records it when that is not
            ``output`` itself (a CodeMind ``output.txt``: ``str`` of the result), which
            ``--match exact`` compares with, as ExeRScope does; else ``None``.
    """

    id: str
    code: str
    input: str
    output: str | None
    entry_point: str = "f"
    original_id: str = ""
    kind: str = "original"
    transforms: tuple[str, ...] = ()
    exception_type: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    input_kind: str = "args"
    recorded_output: str | None = None

    @property
    def group(self) -> str:
        """The robustness group of the row: ``"original"``, the transform names joined by
        ``+`` for a code transform, ``"perturbation"`` (or ``"perturbation:<names>"``)
        for an input perturbation."""
        if self.kind == "original":
            return "original"
        if self.kind == "input-perturbation":
            return "perturbation" + (":" + "+".join(self.transforms) if self.transforms else "")
        return "+".join(self.transforms) if self.transforms else self.kind


# --------------------------------------------------------------------------- predictions

def load_predictions(path: str | os.PathLike[str], fmt: str = "auto", model: str | None = None,
                     bench: str | None = None) -> list[PredictionSet]:
    """Read predictions from ``path``.

    Args:
        path: a ``.json`` file (CRUXEval generations or an Inspect log), a ``.jsonl`` file
            (codemorph predictions or lm-eval ``--log_samples`` output), an Inspect ``.eval``
            log, or a folder in the CodeMind/ExeRScope layout.
        fmt: ``"auto"`` (from the path and, for ``.json``/``.jsonl``, the first bytes),
            ``"cruxeval"``, ``"jsonl"``, ``"codemind"``, ``"inspect"`` or ``"lm-eval"``.
        model: model name to use when the source does not name one (default: file stem).
        bench: CodeMind layout only: which bench folder to read (default: every bench
            found; with several, ids are ``<bench>/<id>``).

    Returns:
        One :class:`PredictionSet` per model, sorted by model name; malformed entries of a
        file are in each set's :attr:`PredictionSet.rejects`, not read.

    Raises:
        InputError: missing path, unknown format, a source that cannot be read as a whole
            (see the module docstring).
    """
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file or folder (predictions)")
    if fmt == "auto":
        if p.is_dir():
            fmt = "codemind"
        elif p.name.endswith(".eval"):
            fmt = "inspect"
        elif p.name.endswith(".jsonl"):
            fmt = "lm-eval" if _is_lm_eval_samples(p) else "jsonl"
        elif p.name.endswith(".json"):
            fmt = "inspect" if _is_inspect_json(p) else "cruxeval"
        else:
            raise InputError(f"{p}: cannot tell the prediction format from the name; expected a .json file "
                             f"(CRUXEval generations), a .jsonl file, or a CodeMind/ExeRScope folder")
    if fmt == "cruxeval":
        return [read_cruxeval_generations(p, model)]
    if fmt == "jsonl":
        return read_jsonl_predictions(p, model)
    if fmt == "codemind":
        return read_codemind_predictions(p, bench=bench, model=model)
    if fmt == "inspect":
        return [read_inspect_log(p, model)]
    if fmt == "lm-eval":
        return [read_lm_eval_samples(p, model)]
    raise InputError(f"unknown prediction format {fmt!r}; expected auto, cruxeval, jsonl, codemind, inspect or lm-eval")


def _default_model(p: Path) -> str:
    name = p.name
    for suffix in (".jsonl", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def read_cruxeval_generations(path: str | os.PathLike[str], model: str | None = None) -> PredictionSet:
    """Read CRUXEval's native generations file: a JSON object mapping each row id to a list
    of generated strings (a bare string counts as a one-element list).

    An entry whose value is not a string or a list of strings is rejected
    (:attr:`PredictionSet.rejects`, with the line its key is on); the other entries are read.
    An id given twice keeps its last value, as ``json.load`` (and so CRUXEval's harness) does.

    Raises:
        InputError: the file is not JSON or not an object; or it has entries but none is
            readable.
    """
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{p}: is a folder; expected a CRUXEval generations .json file")
    try:
        text = p.read_text(encoding="utf-8")
        data = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{p}: not a JSON file ({exc})") from None
    except RecursionError:
        raise InputError(f"{p}: not a JSON file we can read (nested too deeply)") from None
    if not isinstance(data, dict):
        raise InputError(f"{p}: expected a JSON object {{\"sample_0\": [\"...\", ...], ...}}, "
                         f"got {type(data).__name__}")
    out: dict[str, list[str]] = {}
    rejects: list[Reject] = []
    name = model or _default_model(p)
    for rid, gens, lineno in _object_entries(text):
        if isinstance(gens, str):
            gens = [gens]
        if not isinstance(gens, list) or not all(isinstance(g, str) for g in gens):
            rejects.append(Reject(rid, lineno, "read", f"{p}:{lineno} (row {rid!r}): generations must be a string or "
                                  f"a list of strings ({{\"{rid}\": [\"...\", ...]}}), got {_shape(gens)}",
                                  {rid: gens}, file=str(p), detail={"model": name}))
            continue
        if not gens:
            rejects.append(Reject(rid, lineno, "read", f"{p}:{lineno} (row {rid!r}): generations must not be empty "
                                  f"(an empty list has no generation to score; leave the row out instead)",
                                  {rid: gens}, file=str(p), detail={"model": name}))
            continue
        out[str(rid)] = list(gens)
    if not out and rejects:
        raise InputError(_nothing_read(p, rejects))
    return PredictionSet(name, out, str(p), "cruxeval", rejects=rejects)


_WS = re.compile(r"[ \t\n\r]*")


def _object_entries(text: str) -> list[tuple[str, Any, int]]:
    """``(key, value, line of the key)`` for every entry of the JSON object ``text`` (already
    known to parse as one object), duplicates included, in file order."""
    from json.decoder import scanstring
    dec = json.JSONDecoder()
    out = []
    i = _WS.match(text, 0).end() + 1  # past "{"
    line, counted = 1, 0
    while True:
        i = _WS.match(text, i).end()
        if text[i] == ",":
            i = _WS.match(text, i + 1).end()
        if text[i] == "}":
            return out
        line += text.count("\n", counted, i)
        counted = i
        key, i = scanstring(text, i + 1)
        i = _WS.match(text, _WS.match(text, i).end() + 1).end()  # past ":"
        value, i = dec.raw_decode(text, i)
        out.append((key, value, line))


_JSON_NAMES = {"NoneType": "null", "dict": "an object", "list": "a list", "str": "a string", "int": "an integer",
               "float": "a number", "bool": "a boolean"}


def _shape(value: Any) -> str:
    """A short description of a JSON value for a reason: ``an integer``, ``a list holding null``..."""
    bad = sorted({_JSON_NAMES.get(type(v).__name__, type(v).__name__)
                  for v in (value if isinstance(value, list) else ()) if not isinstance(v, str)})
    if bad:
        return f"a list holding {', '.join(bad)}"
    return _JSON_NAMES.get(type(value).__name__, type(value).__name__)


def _nothing_read(p: Path, rejects: list[Reject]) -> str:
    return (f"{p}: no prediction could be read: every entry ({len(rejects)}) is malformed; the first: "
            f"{rejects[0].reason}")


def _decoded_lines(p: Path):
    """``(line number, text or None, raw bytes)`` of every non-blank line of ``p``; text is
    ``None`` when the line is not UTF-8.  A UTF-8 byte order mark before the first line is
    skipped."""
    with open(p, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                yield lineno, None, raw
                continue
            if text.strip():
                yield lineno, text, raw


def _read_json_line(p: Path, lineno: int, text: str | None, raw: bytes) -> tuple[Any, Reject | None]:
    """The JSON value of one line, or a read reject (not UTF-8, not JSON) in the words of
    ``generate``'s rejects."""
    where = f"{p}:{lineno}"
    if text is None:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return None, Reject(None, lineno, "read", f"{where}: not UTF-8 ({exc.reason} at byte {exc.start})",
                                raw.decode("utf-8", "replace"), file=str(p))
    try:
        return json.loads(text.rstrip("\r\n")), None
    except json.JSONDecodeError as exc:
        return None, Reject(None, lineno, "read", f"{where}: not valid JSON ({exc.msg} at column {exc.colno})",
                            text.rstrip("\r\n"), file=str(p))
    except RecursionError:
        return None, Reject(None, lineno, "read", f"{where}: not valid JSON we can read (nested too deeply)",
                            text.rstrip("\r\n")[:200], file=str(p))


def _row_id(row: Any) -> str | None:
    """The ``id`` of a JSON object line when it is a string or an integer, else ``None``."""
    rid = row.get("id") if isinstance(row, dict) else None
    if isinstance(rid, bool) or not isinstance(rid, (str, int)):
        return None
    return str(rid)


def read_jsonl_predictions(path: str | os.PathLike[str], model: str | None = None) -> list[PredictionSet]:
    """Read JSON Lines predictions: ``{"id", "prediction", ["model"]}`` per line.

    ``prediction`` is a string or a list of strings.  Rows without ``model`` belong to
    ``model`` (default: the file stem).  A malformed line -- not UTF-8, not JSON, not an
    object with ``id`` and ``prediction``, a ``prediction`` that is no string or list of
    strings, a second prediction for an id of the same model (the first is kept) -- is a
    :class:`~codemorph.rows.schema.Reject` in every returned set's ``rejects`` (the same
    list), with file, line, the id when readable and what was expected; the other lines are read.

    Raises:
        InputError: a folder; no line gives a prediction (an empty file, or every line rejected).
    """
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{p}: is a folder; expected a JSON Lines file")
    default = model or _default_model(p)
    sets: dict[str, dict[str, list[str]]] = {}
    first: dict[tuple[str, str], int] = {}
    rejects: list[Reject] = []
    for lineno, text, raw in _decoded_lines(p):
        row, bad = _read_json_line(p, lineno, text, raw)
        if bad is not None:
            rejects.append(_with_model(bad, None))
            continue
        rid = _row_id(row)
        named = row.get("model") if isinstance(row, dict) else None
        # the model the line belongs to: its 'model', else the file's; unknown (None) when the
        # line is no object or its 'model' is no string
        owner = (named if isinstance(named, str) and named else default if isinstance(row, dict) and not named
                 else None)
        label = ", ".join(([f"row {rid!r}"] if rid is not None else [])
                          + ([f"model {named!r}"] if isinstance(named, str) and named else []))
        where = f"{p}:{lineno}" + (f" ({label})" if label else "")

        def reject(reason: str) -> None:
            rejects.append(Reject(rid, lineno, "read", f"{where}: {reason}", row, file=str(p),
                                  detail={"model": owner}))

        if not isinstance(row, dict):
            reject(f"expected an object with fields 'id' and 'prediction', got {_shape(row)}")
            continue
        lacking = [f for f in ("id", "prediction") if f not in row]
        if lacking:
            reject(f"expected an object with fields 'id' and 'prediction'; missing "
                   f"{' and '.join(repr(f) for f in lacking)}")
            continue
        if rid is None:
            reject(f"'id' must be a string or an integer, got {_shape(row['id'])}")
            continue
        pred = row["prediction"]
        if isinstance(pred, str):
            pred = [pred]
        if not isinstance(pred, list) or not all(isinstance(g, str) for g in pred):
            reject(f"'prediction' must be a string or a list of strings, got {_shape(row['prediction'])}")
            continue
        if not pred:
            reject("'prediction' must not be an empty list (it has no generation to score; leave the row out "
                   "instead)")
            continue
        m = row.get("model") or default
        if not isinstance(m, str):
            reject(f"'model' must be a string, got {_shape(m)}")
            continue
        bucket = sets.setdefault(m, {})
        if rid in bucket:
            reject(f"duplicate prediction for id {rid!r} (model {m!r}; the one on line {first[(m, rid)]} is kept)")
            continue
        bucket[rid] = pred
        first[(m, rid)] = lineno
    if not sets:
        raise InputError(_nothing_read(p, rejects) if rejects else f"{p}: no predictions in the file")
    # a line whose model cannot be read (not JSON, no object) belongs to the file's one model,
    # when it has one; with several it names none ("model": null)
    only = next(iter(sets)) if len(sets) == 1 else None
    rejects[:] = [_with_model(j, only) if reject_model(j) is None else j for j in rejects]
    return [PredictionSet(m, preds, str(p), "jsonl", rejects=rejects) for m, preds in sorted(sets.items())]


def reject_model(reject: Reject) -> str | None:
    """The model a rejected prediction entry belongs to (its ``"model"`` field in the rejects
    file), or ``None`` when the entry does not tell (a line that is not JSON, in a file with
    several models)."""
    return (reject.detail or {}).get("model")


def _with_model(reject: Reject, model: str | None) -> Reject:
    from dataclasses import replace

    return replace(reject, detail={**(reject.detail or {}), "model": model})


def _read_predict_txt(f: Path, rid: str, model: str) -> tuple[str, Reject | None]:
    """The prediction in a CodeMind ``predict.txt`` (stripped), or a reject when the file
    cannot be read or is not UTF-8 (its text is not known: decoded with replacement
    characters it would be scored as some other answer)."""
    where = f"{f} (row {rid!r}, model {model!r})"
    try:
        data = f.read_bytes()
    except OSError as exc:
        return "", Reject(rid, 1, "read", f"{where}: cannot read the file ({exc.strerror or exc})", None,
                          file=str(f), detail={"model": model})
    try:
        return data.decode("utf-8").strip(), None
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return "", Reject(rid, line, "read", f"{where}: not UTF-8 ({exc.reason} at byte {exc.start})",
                          data.decode("utf-8", "replace"), file=str(f), detail={"model": model})


def _codemind_er_root(p: Path) -> tuple[Path, list[str] | None, str | None]:
    """Resolve a CodeMind path to (ER folder, models or None for all, bench or None)."""
    if (p / "Experiment_Results" / "ER").is_dir():
        return p / "Experiment_Results" / "ER", None, None
    if (p / "ER").is_dir():
        return p / "ER", None, None
    if p.name == "ER":
        return p, None, None
    if p.parent.name == "ER":  # one model folder
        return p.parent, [p.name], None
    if p.parent.parent.name == "ER":  # one bench folder of one model
        return p.parent.parent, [p.parent.name], p.name
    raise InputError(f"{p}: not a CodeMind/ExeRScope layout; expected a folder holding "
                     f"Experiment_Results/ER/<model>/<bench>/<id>/predict.txt")


def read_codemind_predictions(path: str | os.PathLike[str], bench: str | None = None,
                              model: str | None = None) -> list[PredictionSet]:
    """Read every model's ``predict.txt`` files from a CodeMind/ExeRScope layout.

    Args:
        path: layout root, ``Experiment_Results``, ``Experiment_Results/ER``, a model folder,
            or a bench folder inside a model folder.
        bench: bench folder to read (e.g. ``"cruxeval"``); default: every bench, the ids
            then ``<bench>/<id>`` when there are several (as :func:`read_codemind_dataset`
            names the rows of a whole layout).
        model: read this model only (default: every model folder).

    Returns:
        One :class:`PredictionSet` per model, sorted by name; id folders without
        ``predict.txt`` are left out (no prediction); a ``predict.txt`` that cannot be read
        or is not UTF-8 is a reject of its model (:attr:`PredictionSet.rejects`), not a
        prediction (it was decoded with replacement characters and scored).

    Raises:
        InputError: not such a layout, no model with the bench, no predictions.
    """
    p = Path(path)
    er, models, path_bench = _codemind_er_root(p)
    bench = bench or path_bench
    if models is None:
        models = sorted(d.name for d in er.iterdir() if d.is_dir())
    if model is not None:
        if model not in models:
            raise InputError(f"{er}: no model folder {model!r} (found: {', '.join(models) or 'none'})")
        models = [model]
    benches = [bench] if bench is not None else \
        sorted({b.name for m in models for b in (er / m).iterdir() if b.is_dir()})
    several = len(benches) > 1
    out = []
    for m in models:
        preds: dict[str, list[str]] = {}
        rejects: list[Reject] = []
        found = []
        for b in benches:
            folder = er / m / b
            if not folder.is_dir():
                continue
            found.append(folder)
            for d in sorted(folder.iterdir()):
                f = d / "predict.txt"
                if d.is_dir() and f.is_file():
                    rid = f"{b}/{d.name}" if several else d.name
                    text, bad = _read_predict_txt(f, rid, m)
                    if bad is not None:
                        rejects.append(bad)
                    else:
                        preds[rid] = [text]
        if found:
            out.append(PredictionSet(m, preds, str(found[0] if len(found) == 1 else er / m), "codemind",
                                     None if several else benches[0], rejects=rejects))
    if not out:
        raise InputError(f"{er}: no model has a {' or '.join(repr(b) for b in benches) or 'bench'} folder")
    return out


def _first_line(p: Path) -> str:
    try:
        with open(p, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    return line
    except (OSError, UnicodeDecodeError):
        pass
    return ""


def _is_lm_eval_samples(p: Path) -> bool:
    try:
        d = json.loads(_first_line(p))
    except (json.JSONDecodeError, RecursionError):
        return False
    return isinstance(d, dict) and "doc_id" in d and "resps" in d and "doc" in d


def _is_inspect_json(p: Path) -> bool:
    try:
        with open(p, encoding="utf-8") as fh:
            head = fh.read(4096)
    except (OSError, UnicodeDecodeError):
        return False
    return head.lstrip().startswith("{") and '"eval"' in head and '"version"' in head and '"status"' in head


def _harness_set(model: str, raw: dict[str, list[str]], source: Path, fmt: str, mode: str,
                 kinds: dict[str, str] | None = None) -> PredictionSet:
    preds: dict[str, list[str]] = {}
    stats: dict[str, int] = {}
    unparsable = 0
    for rid, gens in raw.items():
        out = []
        for g in gens:
            a = extract_answer(g, mode, (kinds or {}).get(rid, "args"))
            stats[a.status] = stats.get(a.status, 0) + 1
            if a.assertions > 1:
                stats["several-assertions"] = stats.get("several-assertions", 0) + 1
            unparsable += not a.parsable
            out.append(a.text)
        preds[rid] = out
    return PredictionSet(model, preds, str(source), fmt, mode=mode, unparsable=unparsable,
                         extraction=dict(sorted(stats.items())))


def read_inspect_log(path: str | os.PathLike[str], model: str | None = None) -> PredictionSet:
    """Read an Inspect AI eval log (``.eval`` or ``.json``) of ``codemorph/execution_prediction``.

    Each sample's row id is ``metadata["id"]`` (else the sample id); its generations are the
    completions of its epochs, in epoch order, passed through :func:`extract_answer` with the
    task's ``mode`` (``metadata["mode"]``, else the task argument ``mode``, else output) and
    the row's ``metadata["input_kind"]`` (else ``args``).
    Samples that errored have no completion and are left out.  The model name is the log's
    model, followed by the prompt variant when not the default (``[cot,
    exceptions=class-list]``), so the runs of an ablation stay apart in ``analyze``.

    Raises:
        InputError: not readable as an Inspect log, inspect-ai not installed, no samples.
    """
    p = Path(path)
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise InputError(f"{p}: reading Inspect AI logs needs inspect-ai (pip install 'codemorph[inspect]')") from None
    try:
        log = read_eval_log(str(p))
    except Exception as exc:  # the reader raises many kinds; report the file
        raise InputError(f"{p}: not an Inspect AI eval log ({type(exc).__name__}: {exc})") from None
    if not log.samples:
        raise InputError(f"{p}: the Inspect log has no samples")
    mode = str((log.eval.task_args or {}).get("mode") or "output")
    raw: dict[str, list[tuple[int, str]]] = {}
    kinds: dict[str, str] = {}
    for s in log.samples:
        if s.error is not None or s.output is None:
            continue
        md = s.metadata or {}
        mode = str(md.get("mode") or mode)
        raw.setdefault(str(md.get("id", s.id)), []).append((int(s.epoch or 1), s.output.completion))
        kinds[str(md.get("id", s.id))] = str(md.get("input_kind") or "args")
    if mode not in ("output", "input"):
        raise InputError(f"{p}: unknown prediction mode {mode!r} in the log")
    ordered = {rid: [g for _, g in sorted(v, key=lambda t: t[0])] for rid, v in raw.items()}
    args = log.eval.task_args or {}
    variant = [k for k in ("cot", "strict") if str(args.get(k, "")).lower() in ("true", "1", "yes")]
    variant += [f"exceptions={args['exceptions']}"] if args.get("exceptions") not in (None, "auto") else []
    name = model or str(log.eval.model) + (f" [{', '.join(variant)}]" if variant else "")
    return _harness_set(name, ordered, p, "inspect", mode, kinds)


_LM_EVAL_NAME = re.compile(r"samples_(.+?)_\d{4}-\d{2}-\d{2}T")


def read_lm_eval_samples(path: str | os.PathLike[str], model: str | None = None) -> PredictionSet:
    """Read lm-evaluation-harness ``--log_samples`` output (``samples_<task>_<time>.jsonl``).

    The row id is ``doc["id"]``; the generations are ``resps`` (every repeat, flattened), passed
    through :func:`extract_answer` with the row's ``doc["input_kind"]`` (else ``args``).  The mode is ``input`` when the task name (from the file
    name) contains ``input``, else ``output``.  The model name defaults to the folder lm-eval
    wrote the file into (named after the model).

    A line that is not such a sample (not UTF-8, not JSON, no ``doc["id"]`` or ``resps``) is
    rejected (:attr:`PredictionSet.rejects`); the other lines are read.

    Raises:
        InputError: no line is a sample (an empty file, or every line rejected).
    """
    p = Path(path)
    m = _LM_EVAL_NAME.match(p.name)
    task = m.group(1) if m else p.stem
    mode = "input" if "input" in task else "output"
    raw: dict[str, list[str]] = {}
    kinds: dict[str, str] = {}
    rejects: list[Reject] = []
    for lineno, text, raw_line in _decoded_lines(p):
        d, bad = _read_json_line(p, lineno, text, raw_line)
        if bad is not None:
            rejects.append(bad)
            continue
        doc = d.get("doc") if isinstance(d, dict) else None
        rid = _row_id(doc)
        resps = d.get("resps") if isinstance(d, dict) else None
        if rid is None or not isinstance(resps, list) or not all(isinstance(r, (str, list)) for r in resps):
            rejects.append(Reject(rid, lineno, "read", f"{p}:{lineno}" + (f" (row {rid!r})" if rid else "") +
                                  ": expected an lm-eval sample with 'doc' (holding a string or integer 'id') "
                                  "and 'resps' (a list of strings or of lists)", d, file=str(p)))
            continue
        gens: list[str] = []
        for r in resps:
            gens.extend([r] if isinstance(r, str) else [str(x) for x in r])
        raw.setdefault(rid, []).extend(gens)
        kinds[rid] = str(doc.get("input_kind") or "args")
    if not raw:
        raise InputError(_nothing_read(p, rejects) if rejects else f"{p}: no samples in the file")
    name = model or (p.parent.name if p.parent.name not in ("", ".") else task)
    ps = _harness_set(name, raw, p, "lm-eval", mode, kinds)
    ps.rejects = [_with_model(j, name) for j in rejects]
    return ps


def find_codemind_dataset(pred_path: str | os.PathLike[str], bench: str) -> Path | None:
    """The ``dataset/<bench>`` folder of the layout that holds ``pred_path``, if any."""
    p = Path(pred_path).resolve()
    for cand in (p, *p.parents):
        d = cand / "dataset" / bench
        if d.is_dir():
            return d
    return None


# --------------------------------------------------------------------------- data sets

def load_rows(path: str | os.PathLike[str], bench: str | None = None) -> list[EvalRow]:
    """Read a data set to score: a JSON Lines file (CRUXEval rows or rows written by
    ``codemorph generate``) or a CodeMind/ExeRScope folder (:func:`read_codemind_dataset`;
    ``bench`` picks one bench of a layout that holds several).

    Raises:
        InputError: missing path, malformed rows (file and line named), duplicate ids.
    """
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file or folder (data set)")
    if p.is_dir():
        several = len(codemind_benches(p)) > 1  # one bench folder is read whole, whatever bench says
        return read_codemind_dataset(p, bench if several else None)
    return read_jsonl_rows(p)


def read_jsonl_rows(path: str | os.PathLike[str]) -> list[EvalRow]:
    """Read CRUXEval-format JSON Lines rows (``id``, ``code``, ``input``, ``output``, and the
    optional fields written by ``codemorph generate``: ``entry_point``, ``original_id``,
    ``kind``, ``transforms``, ``exception``).  A row with ``output: null`` must carry
    ``exception: {"type": ...}``.

    Raises:
        InputError: bad JSON or a bad row (file:line and the problem), duplicate id, no rows.
    """
    p = Path(path)
    rows: list[EvalRow] = []
    seen: dict[str, int] = {}
    with open(p, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{p}:{lineno}"
            try:
                d = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{where}: not valid JSON ({exc.msg})") from None
            except RecursionError:
                raise InputError(f"{where}: not valid JSON we can read (nested too deeply)") from None
            if not isinstance(d, dict):
                raise InputError(f"{where}: expected a JSON object")
            rows.append(_row_from_dict(d, where))
            if rows[-1].id in seen:
                raise InputError(f"{where}: duplicate id {rows[-1].id!r} (first on line {seen[rows[-1].id]})")
            seen[rows[-1].id] = lineno
    if not rows:
        raise InputError(f"{p}: no rows")
    return rows


_KNOWN = {"id", "code", "input", "output", "entry_point", "original_id", "kind", "transforms", "exception",
          "input_kind"}
#: the values of a row's ``input_kind`` field (absent means ``args``)
INPUT_KINDS = ("args", "call", "stdin")


def _row_from_dict(d: dict[str, Any], where: str) -> EvalRow:
    rid = d.get("id")
    if isinstance(rid, int) and not isinstance(rid, bool):
        rid = str(rid)
    for name, value in (("id", rid), ("code", d.get("code")), ("input", d.get("input"))):
        if not isinstance(value, str):
            raise InputError(f"{where}: field {name!r} must be a string")
    exc = d.get("exception")
    exc_type = None
    if exc is not None:
        if not isinstance(exc, dict) or not isinstance(exc.get("type"), str):
            raise InputError(f"{where}: field 'exception' must be an object with a string 'type'")
        exc_type = exc["type"]
    output = d.get("output")
    if output is None and exc_type is None:
        raise InputError(f"{where}: 'output' is null but the row has no 'exception'")
    if output is not None and not isinstance(output, str):
        raise InputError(f"{where}: field 'output' must be a string (a repr) or null")
    if output is not None and exc_type is not None:
        raise InputError(f"{where}: a row has either an 'output' or an 'exception', not both")
    transforms = d.get("transforms") or ()
    if not isinstance(transforms, (list, tuple)) or not all(isinstance(t, str) for t in transforms):
        raise InputError(f"{where}: 'transforms' must be a list of names")
    kind = d.get("kind") or "original"
    if kind not in ("original", "code-transform", "input-perturbation"):
        raise InputError(f"{where}: unknown kind {kind!r}")
    entry = d.get("entry_point") or "f"
    if not isinstance(entry, str) or not entry.isidentifier():
        raise InputError(f"{where}: 'entry_point' must be an identifier")
    input_kind = d.get("input_kind") or "args"
    if input_kind not in INPUT_KINDS:
        raise InputError(f"{where}: unknown input_kind {input_kind!r}; expected one of {', '.join(INPUT_KINDS)}")
    original = d.get("original_id") or rid
    return EvalRow(rid, d["code"], d["input"], output, entry, str(original), kind, tuple(transforms), exc_type,
                   {k: v for k, v in d.items() if k not in _KNOWN}, input_kind)


def call_arguments(call_text: str, entry_point: str | None = None) -> tuple[str, str]:
    """Split a call such as ``f([1, 2], 'a')`` into ``("f", "[1, 2], 'a'")``.

    The text must parse as exactly one call of a plain name (checked with :mod:`ast`;
    nothing is evaluated); the argument text is returned verbatim.

    Raises:
        InputError: not a single call of a name, or of another name than ``entry_point``.
    """
    text = call_text.strip()
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise InputError(f"not a call: {text[:80]!r} ({exc.msg})") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise InputError(f"not a call of a function name: {text[:80]!r}")
    if entry_point is not None and node.func.id != entry_point:
        raise InputError(f"calls {node.func.id!r}, expected {entry_point!r}: {text[:80]!r}")
    open_at = text.index("(", len(node.func.id))
    if not text.endswith(")"):
        raise InputError(f"text after the call: {text[:80]!r}")
    return node.func.id, text[open_at + 1:-1]


def _universal_newlines(text: str) -> str:
    """``text`` as Python's text mode reads a file (``\r\n`` and ``\r`` become ``\n``), the
    way ExeRScope's scripts read ``output.txt``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


#: ``output.txt`` of an exception row written by codemorph: ``raises T`` exactly
_LAYOUT_RAISES = re.compile(r"raises ([A-Za-z_]\w*)")


def read_codemind_dataset(path: str | os.PathLike[str], bench: str | None = None) -> list[EvalRow]:
    """Read a CodeMind/ExeRScope data set: a ``dataset/<bench>`` folder, the ``dataset``
    folder or the layout root (every bench, ids ``<bench>/<id>``), or one ``bench`` of it.
    Each bench's input kind and the recorded outputs are read by the rules of
    :mod:`codemorph.rows.codemind` (``cruxeval``: ``f(...)`` -> ``args``; ``humaneval``:
    a call -> ``call``; ``classeval``: ``Test.test()`` run as ``Test().test()``;
    ``Avatar``: ``stdin``); :attr:`EvalRow.recorded_output` keeps ``output.txt``'s text
    (line ends as Python's text mode reads them, as ExeRScope reads the file) for
    ``--match exact``.  An ``output.txt`` that is exactly ``raises T`` (no line end), what
    :func:`codemorph.rows.codemind.write_codemind_row` writes for an exception row, gives an
    exception row (``output`` ``None``, :attr:`EvalRow.exception_type` ``T``).  Rows are sorted
    by id (numeric suffixes in numeric order).

    Raises:
        InputError: not such a layout; a missing or unreadable file, or an ``input.txt`` /
            ``output.txt`` that breaks the bench's rule (the folder and the rule named).
    """
    rows = []
    for rec in read_codemind_records(path, bench):
        row = rec.to_row()
        if isinstance(row, str):
            raise InputError(f"{rec.folder}: {row}")
        # an exception row as codemorph writes it (codemorph.rows.codemind.write_codemind_row):
        # output.txt is `raises T`, with nothing else, not even a line end
        raised = _LAYOUT_RAISES.fullmatch(rec.output_text or "")
        rows.append(EvalRow(row["id"], row["code"], row["input"], None if raised else row["output"],
                            row["entry_point"], row["id"], exception_type=raised.group(1) if raised else None,
                            extra={"bench": rec.bench}, input_kind=row["input_kind"],
                            recorded_output=_universal_newlines(rec.output_text or "")))
    if not rows:
        raise InputError(f"{path}: no row folders (<id>/main.py, input.txt, output.txt)")
    return rows


# --------------------------------------------------------------------------- answers of models

@dataclass(frozen=True)
class Answer:
    """The answer found in one raw model generation (see :func:`extract_answer`).

    Attributes:
        text: the answer to score (a literal in output mode, a call in input mode, or an
            exception answer such as ``raises KeyError``); ``""`` when unparsable.
        status: where it was found: ``"tags"`` (inside ``[ANSWER]``...``[/ANSWER]``),
            ``"fence"`` (a fenced code block), ``"assertion"`` (an ``assert`` line),
            ``"bare"`` (the whole text, CRUXEval's direct-prompt case), or
            ``"unparsable:<why>"`` with why one of ``empty``, ``unclosed-think``,
            ``no-answer``.
        assertions: number of ``assert`` statements in the answer text; when more than one,
            the first is used.
    """

    text: str
    status: str
    assertions: int = 0

    @property
    def parsable(self) -> bool:
        """Whether an answer was found."""
        return not self.status.startswith("unparsable")


_FENCE = re.compile(r"```[ \t]*(?:python3?|py)?[ \t]*\n(.*?)```", re.S | re.I)


def _looks_like_expression(text: str) -> bool:
    try:
        ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def extract_answer(generation: str, mode: str, input_kind: str = "args") -> Answer:
    """Find the answer in one raw generation of a base, chat or reasoning model.

    CRUXEval's post-processing (``inference_output_prediction.py`` /
    ``inference_input_prediction.py`` of facebookresearch/cruxeval) is applied to the
    answer text, with three additions for chat and reasoning models:

    1. reasoning: only the text after the last ``</think>`` is read; a ``<think>``
       without its closing tag is unparsable (the reasoning was cut off);
    2. the answer text is what follows ``[ANSWER]`` (up to ``[/ANSWER]`` when present; the
       stop sequence normally removes it), else the last fenced code block that holds an
       ``assert`` (else the last fenced block), else the whole text;
    3. an answer with several ``assert`` statements is read from the first one
       (:attr:`Answer.assertions` counts them).

    Then, as CRUXEval does: output mode keeps what follows ``==``, input mode keeps what
    precedes it (without a leading ``assert``).  Where the answer (after ``assert``) parses
    as one comparison ``X == Y``, the two sides are taken from the parse, so an input or
    output holding ``==`` (``f('a==b') == 'x'``) is cut right; a bare answer that parses
    as an expression (``'a==b'``) is kept whole; otherwise CRUXEval's text rule applies
    (everything after the first ``==``; CRUXEval keeps the text between the first and a
    second ``==``).  On answers without ``==`` inside the input or output -- all of
    CRUXEval's -- this is CRUXEval's result.  An exception answer
    (``assert f(x) raises KeyError``, see :mod:`codemorph.harness.prompts`) becomes
    ``raises KeyError``.  Surrounding whitespace is stripped.

    ``stdin`` rows (``input_kind="stdin"``) answer with a standard stream's text, not an
    assertion: steps 1 and 2 apply, then the text is kept as written except for line ends
    before it and whitespace after it (no ``assert`` or ``==`` rule; ``raises T`` stays as
    written and is read by :func:`codemorph.scoring.evaluate.names_exception`).

    Args:
        generation: the model's text (the completion after the prompt).
        mode: ``"output"`` or ``"input"``.
        input_kind: the row's :attr:`EvalRow.input_kind` (``"args"``, ``"call"``, ``"stdin"``).

    Returns:
        An :class:`Answer`; unparsable answers have ``text == ""``.

    Raises:
        ValueError: unknown ``mode``.
    """
    if mode not in ("output", "input"):
        raise ValueError(f"mode must be 'output' or 'input', got {mode!r}")
    text = generation
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    elif "<think>" in text:
        return Answer("", "unparsable:unclosed-think")
    status = "bare"
    if "[ANSWER]" in text:
        text = text.split("[ANSWER]")[1]
        if "[/ANSWER]" in text:
            text = text.split("[/ANSWER]")[0]
        status = "tags"
    else:
        blocks = _FENCE.findall(text)
        if blocks:
            with_assert = [b for b in blocks if re.search(r"^\s*assert\b", b, re.M)]
            text = (with_assert or blocks)[-1]
            status = "fence"
    if input_kind == "stdin":
        text = text.lstrip("\r\n").rstrip()
        return Answer(text, status) if text else Answer("", "unparsable:empty")
    asserts = [i for i, ln in enumerate(text.splitlines()) if re.match(r"\s*assert\b", ln)]
    if len(asserts) > 1:
        lines = text.splitlines()
        text = "\n".join(lines[asserts[0]:asserts[1]])
    if asserts and status == "bare":
        status = "assertion"
    text = text.strip()
    m = _RAISES_PROTOCOL.fullmatch(text)
    named = _named_after_raises(m.group(1)) if m and "==" not in text and _protocol_head(text[:m.start(1)]) else None
    if named is not None:  # the protocol, not a value that holds the word (a string 'it raises KeyError')
        if mode == "output":
            return Answer(f"raises {named}", status, len(asserts))
        text = text[:m.start(1)].strip()[:-len("raises")].strip()  # input mode: the call before "raises T"
    asserted = text.startswith("assert") and (len(text) == 6 or not (text[6].isalnum() or text[6] == "_"))
    body = text[6:].strip() if asserted else text
    side = _equality_side(body, mode)
    if side is not None:
        text = side
    elif mode == "output":
        if _looks_like_expression(body) and not asserted:
            text = body  # a bare literal, even one holding "=="
        elif "==" in text:
            text = text.split("==", 1)[1].strip()
        elif status == "bare" and text:
            return Answer("", "unparsable:no-answer", len(asserts))
    else:
        if "==" in text:
            text = text.split("==")[0].strip()
        if text.startswith("assert") and (len(text) == 6 or not (text[6].isalnum() or text[6] == "_")):
            text = text[6:].strip()
    if not text:
        return Answer("", "unparsable:empty", len(asserts))
    return Answer(text, status, len(asserts))


def _equality_side(body: str, mode: str) -> str | None:
    """For ``X == Y`` parsed as one comparison: ``Y`` (output mode) or ``X`` (input mode),
    as written; else ``None``."""
    try:
        node = ast.parse(body, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
        return None
    part = node.comparators[0] if mode == "output" else node.left
    seg = ast.get_source_segment(body, part, padded=False)
    return seg.strip() if seg is not None else None


_EXC_SUFFIXES = ("Error", "Exception", "Exit", "Interrupt", "Warning", "StopIteration", "StopAsyncIteration")


def predicted_exception(answer: str) -> str | None:
    """The exception class an answer says the call raises, or ``None`` for a value.

    The class :func:`exception_named` reads (module prefixes such as ``builtins.`` dropped)
    when it names an exception class: a builtin exception, or a name ending in ``Error``,
    ``Exception``, ``Warning``...  A string literal such as ``'KeyError'`` is a value, not an
    exception answer.
    """
    name = exception_named(answer)
    if name is None:
        return None
    name = name.rsplit(".", 1)[-1]
    if builtin_exception(name) is not None or name.endswith(_EXC_SUFFIXES):
        return name
    return None


def builtin_exception(name: str) -> type | None:
    """The builtin exception class called ``name`` (``"IOError"``: ``OSError``), or ``None``
    when ``builtins`` has no exception class of that name (``"JSONDecodeError"``, ``"len"``)."""
    import builtins

    obj = getattr(builtins, name, None)
    return obj if isinstance(obj, type) and issubclass(obj, BaseException) else None


_DOTTED = r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*"
#: ``raises T``, ``assert f(x) raises T`` (the exception-answer protocol); the last ``raises``
#: preceded by a space or at the start, so ``f('raises x') raises T`` reads ``T``
_RAISES_PROTOCOL = re.compile(r"(?:\A|.*\s)raises\s+(.+?)\s*\Z", re.S)
#: ``T: message`` (a traceback's last line, Python's own report of an uncaught exception)
_COLON_MESSAGE = re.compile(rf"({_DOTTED})\s*:(?!=).*\Z", re.S)
#: ``<class 'T'>`` (the repr of the class, unquoted)
_CLASS_REPR = re.compile(r"<class\s+'([A-Za-z_][\w.]*)'>\Z")
_TRACEBACK_HEAD = re.compile(r"^\s*Traceback \(most recent call last\):", re.M)


def exception_named(answer: str) -> str | None:
    """The dotted name of the exception class an answer names, as written (``"IndexError"``,
    ``"builtins.IndexError"``, ``"json.JSONDecodeError"``), or ``None`` when the answer names
    no single class.  The name is syntactic: whether it is an exception class is not checked
    (:func:`predicted_exception` does that).

    Recognised, after stripping surrounding whitespace:

    * the exception-answer protocol of :mod:`codemorph.harness.prompts`: ``raises T``,
      ``assert f(x) raises T`` (what follows the last ``raises`` is read as below);
    * a ``Traceback (most recent call last):`` block: its last non-empty line (``T: message``);
    * ``T: message`` or ``T:`` (Python's report of an uncaught exception);
    * a ``raise`` statement: ``raise T``, ``raise T(...)``, ``raise T from U`` (the class is
      ``T``, the one raised; ``U`` is only its cause), Python 2's ``raise T, 'message'``;
    * an expression: ``T``, ``(T)``, ``T(...)`` (any arguments), ``((T))('m')``, and each with
      a module prefix (``builtins.T``); ``<class 'T'>`` (the class's repr, unquoted).

    Not a name: a string (``'T'``, ``"T('m')"``, ``'<class \\'T\\'>'``: a value), several
    classes (``T or U``, ``(T, U)``), anything else (``T + 1``, ``T.args``, ``T()()``,
    ``raise`` alone, prose such as ``This raises a T``).  Parsed with :mod:`ast`, never
    evaluated; an argument list that does not parse (``T(list index out of range)``) still
    counts when its parentheses close at the end of the answer.
    """
    text = answer.strip()
    m = _RAISES_PROTOCOL.fullmatch(text)
    if m and _protocol_head(text[:m.start(1)]):
        return _named_after_raises(m.group(1))
    if _TRACEBACK_HEAD.search(text):
        lines = [ln for ln in text.splitlines() if ln.strip()]
        text = lines[-1].strip() if lines else ""
    m = _COLON_MESSAGE.match(text)
    if m:
        return re.sub(r"\s+", "", m.group(1))
    if text.startswith("raise") and text[5:6].isspace():
        return _named_by_raise(text[5:].strip())
    return _named_by_expression(text)


def _named_after_raises(rest: str) -> str | None:
    """The class named by what follows ``raises``: ``T``, ``T(...)``, ``T: message``."""
    m = _COLON_MESSAGE.match(rest.strip())
    return re.sub(r"\s+", "", m.group(1)) if m else _named_by_expression(rest)


def _protocol_head(head: str) -> bool:
    """Whether ``head`` (the text before ``raises``) is what the protocol puts there:
    nothing, ``assert`` and a call, or a call (``f([])``); prose (``This never``) is not."""
    head = head.strip()
    if head.endswith("raises"):
        head = head[:-6].strip()
    if head.startswith("assert") and head[6:7].isspace():
        head = head[6:].strip()
    elif head == "assert":
        head = ""
    return head == "" or _looks_like_expression(head)


def _dotted_name(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _named_by_node(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):  # T(...): the instance's class
        node = node.func
    return _dotted_name(node)


def _named_by_raise(rest: str) -> str | None:
    """The class of ``raise <rest>``: ``T``, ``T(...)``, ``T from U`` (``T``), ``T, 'm'``."""
    try:
        tree = ast.parse("raise " + rest)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        m = re.match(rf"({_DOTTED})\s*,", rest)  # Python 2: raise T, 'message'
        if m:
            return re.sub(r"\s+", "", m.group(1))
        return _named_by_expression(rest)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Raise) or tree.body[0].exc is None:
        return None
    return _named_by_node(tree.body[0].exc)


def _named_by_expression(text: str) -> str | None:
    text = text.strip()
    m = _CLASS_REPR.match(text)
    if m:
        return m.group(1)
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        # T(list index out of range): an argument list that is no Python, closed at the end
        m = re.match(rf"({_DOTTED})\s*\(", text)
        if m and _closes_at_end(text, m.end() - 1):
            return re.sub(r"\s+", "", m.group(1))
        return None
    return _named_by_node(node)


def _closes_at_end(text: str, start: int) -> bool:
    """Whether the parenthesis at ``text[start]`` closes at the last character (quotes and
    nested parentheses are not interpreted: a bracket count)."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i == len(text) - 1
    return False
