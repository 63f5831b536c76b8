"""Reading and writing rows in JSON Lines (CRUXEval-compatible schema); reading Parquet.

Input rows come from JSON Lines files or Parquet files (``*.parquet``, with the same
columns; needs ``pip install 'codemorph[parquet]'``), a directory of shards, or a glob
pattern.  Reading is streaming: :func:`read_rows` holds one line (JSON Lines) or one record
batch (Parquet) at a time, plus one entry per row id to detect duplicates.

Reading never raises for a bad *row*: each line becomes either a :class:`SourceRow` or a
:class:`Reject` that says what is wrong and where (file, line or Parquet row, row id).
Only a problem with a *file* itself (missing, a directory, empty, not Parquet, a Parquet
schema without a required column or with a column of the wrong type) raises
:class:`~codemorph.InputError`; Parquet schemas of every shard are checked before the
first row is returned.
"""

from __future__ import annotations

import glob
import gzip
import json
import os
import unicodedata
import zlib
from contextlib import contextmanager
from dataclasses import replace
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

from codemorph.errors import InputError, OutputWriteError
from codemorph.rows.codemind import CODEMIND_FILES, is_codemind_layout, read_codemind_records
from codemorph.rows.schema import Reject, row_json
from codemorph.rows.testformats import incomplete_test_format, is_test_format, test_rows

__all__ = ["SourceRow", "Reject", "read_rows", "row_objects", "INPUT_KINDS", "call_parts", "RowWriter", "rejects_path", "progress_path", "Checkpoint", "checkpoint_rows", "input_files",
           "default_dataset_path", "count_rows", "REQUIRED_FIELDS", "MAX_CODE_CHARS", "MAX_STDIN_CHARS",
           "PARQUET_BATCH_ROWS"]

#: fields every input row must carry, each a string
REQUIRED_FIELDS = ("id", "code", "input", "output")
#: how a row's program is run (the optional field ``input_kind``; absent means ``"args"``):
#: ``"args"`` calls ``entry_point(<input>)`` (CRUXEval; ``output`` is the repr of the value),
#: ``"call"`` evaluates ``input``, a whole expression such as ``has_close_elements([1.0], 0.3)``
#: or ``Test().test()``, in the program's namespace after its code ran (``output``: the repr of
#: the value), ``"stdin"`` runs the program as ``__main__`` with ``input`` as its standard
#: input (``output``: its standard output, verbatim text)
INPUT_KINDS = ("args", "call", "stdin")
#: characters; a row whose ``code`` or ``input`` is longer is rejected (CRUXEval programs are
#: under 1,000 characters; parsing and rewriting grow faster than linearly with size)
MAX_CODE_CHARS = 100_000
#: characters; the ``input`` of a ``stdin`` row may be this long (it is data, never parsed as
#: code: competitive-programming inputs run to hundreds of thousands of characters)
MAX_STDIN_CHARS = 1_000_000
#: rows per record batch read from a Parquet file (bounds the reader's memory)
PARQUET_BATCH_ROWS = 1024
#: file name endings read as JSON Lines and as Parquet (anything else is read as JSON Lines;
#: a name ending in ``.gz`` is decompressed first)
JSONL_SUFFIX, PARQUET_SUFFIX, GZIP_SUFFIX = ".jsonl", ".parquet", ".gz"


@dataclass(frozen=True)
class SourceRow:
    """One valid input row.

    Attributes:
        id: the row id (str; an int id is converted).
        code: program source; input: argument-list literal; output: repr of the expected value.
        entry_point: function to call (``"f"`` unless the row has ``entry_point``).
        line: 1-based line number in the input file (Parquet: 1-based row number).
        extra: every other field of the row, kept as is.
        file: the input file the row came from (``None`` when not read from a file).
        where: ``"line 4"``, or ``"line 4 of shards/a.jsonl"`` when the input has several
            files (``"row 4 ..."`` for Parquet): how messages name the row's place.
        input_kind: one of :data:`INPUT_KINDS` (the row's ``input_kind`` field; ``"args"``
            when absent): how ``input`` runs the program and what ``output`` holds.
    """

    id: str
    code: str
    input: str
    output: str
    entry_point: str
    line: int
    extra: dict[str, Any] = field(default_factory=dict)
    file: str | None = field(default=None, compare=False)  # rows compare by content
    where: str = field(default="", compare=False)
    input_kind: str = "args"

    @property
    def place(self) -> str:
        """:attr:`where`, or ``"line N"`` when it is not set."""
        return self.where or f"line {self.line}"


def call_parts(text: str) -> tuple[str, str] | None:
    """``(name, arguments)`` when the expression ``text`` is one call of a plain name, such
    as ``has_close_elements([1.0, 2.0], 0.3)`` -> ``("has_close_elements", "[1.0, 2.0], 0.3")``
    (the argument text exactly as written, without the parentheses); ``None`` for anything
    else (``Test().test()``, ``f(1) + 1``, ``obj.m(x)``, text that does not parse).  Parsed
    with :mod:`ast`, never evaluated.

    A ``call`` row of this shape runs exactly as an ``args`` row with that entry point and
    argument list: ``eval(f"{name}({arguments})")`` in the program's globals."""
    import ast

    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    node = tree.body
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return None
    stripped = text.strip()
    # the argument text: between the name's parenthesis and the final one
    head = len(node.func.id)
    rest = stripped[head:].lstrip()
    if not (rest.startswith("(") and rest.endswith(")")):
        return None
    inner = rest[1:-1]
    try:  # the slice must be the same argument list
        again = ast.parse(f"{node.func.id}({inner})", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if ast.dump(again) != ast.dump(node):
        return None
    return node.func.id, inner


def default_dataset_path() -> Path:
    """The small CRUXEval-format data set bundled with codemorph (used when no input is given)."""
    return Path(str(resources.files("codemorph.data").joinpath("default.jsonl")))


def rejects_path(out_path: str | os.PathLike[str]) -> Path:
    """Where the rejects of ``out_path`` go: ``out.jsonl`` -> ``out.rejects.jsonl``."""
    p = Path(out_path)
    stem = p.name[: -len(".jsonl")] if p.name.endswith(".jsonl") else p.name
    return p.with_name(stem + ".rejects.jsonl")


def _is_parquet(path: Path) -> bool:
    return path.name.lower().endswith(PARQUET_SUFFIX)


def input_files(path: str | os.PathLike[str]) -> list[Path]:
    """The input files ``path`` names: the file itself, the ``*.jsonl``, ``*.jsonl.gz`` and
    ``*.parquet`` shards of a directory (sorted by name), the three files of every row
    folder of a CodeMind/ExeRScope layout (:mod:`codemorph.rows.codemind`), or the files a glob pattern such as
    ``"corpus/part-*.jsonl"`` or ``"corpus/*.parquet"`` matches (sorted).  Files ending in
    ``.parquet`` are read as Parquet, every other file as JSON Lines.

    Raises:
        InputError: nothing exists there, the directory has no ``.jsonl``/``.parquet``
            file, or the pattern matches no file.
    """
    p = Path(path)
    if p.is_dir() and is_codemind_layout(p):
        return sorted(r.folder / n for r in read_codemind_records(p) for n in CODEMIND_FILES
                      if (r.folder / n).is_file())
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.is_file() and (f.name.endswith(JSONL_SUFFIX) or _is_parquet(f)
                                                                 or f.name.endswith(JSONL_SUFFIX + GZIP_SUFFIX)))
        if not files:
            raise InputError(f"{p}: is a directory with no .jsonl or .parquet shards, expected a JSON Lines "
                             f"or Parquet file or a directory of them")
        return files
    if p.exists():
        return [p]
    if any(c in str(path) for c in "*?["):
        files = sorted(Path(f) for f in glob.glob(str(path)) if os.path.isfile(f))
        if not files:
            raise InputError(f"{path}: no file matches this pattern")
        return files
    raise InputError(f"{p}: no such file")


def read_rows(path: str | os.PathLike[str], max_code_chars: int = MAX_CODE_CHARS) -> Iterator[SourceRow | Reject]:
    """Yield a :class:`SourceRow` or a :class:`Reject` for every row of ``path``: every
    non-blank line of a JSON Lines file, every row of a Parquet file, or of every shard of
    a directory or glob pattern (see :func:`input_files`; shards are read in name order,
    ids must be unique across them, and line/row numbers are per shard).

    A lazy iterator: it reads one line (Parquet: one record batch of
    :data:`PARQUET_BATCH_ROWS` rows) at a time and keeps one entry per row id seen to
    reject duplicates (about 140 bytes each: 400,000 rows of CRUXEval-sized programs are
    read in 83 MiB peak, against 311 MiB for a list of them; ``benchmarks/bench_scale.py
    --memory``).

    Parquet files carry the same columns as JSON Lines rows: ``id`` (string or integer),
    ``code``, ``input``, ``output`` (strings), optional ``entry_point`` (string); every
    other column is kept in :attr:`SourceRow.extra` and must hold JSON-representable
    values (strings, numbers, booleans, lists, structs).  A null in a required column
    rejects that row.

    ``max_code_chars``: rows whose ``code`` or ``input`` has more characters are rejected
    (the ``input`` of a ``stdin`` row may have up to :data:`MAX_STDIN_CHARS`, or
    ``max_code_chars`` if that is more).

    A folder in the CodeMind/ExeRScope layout (a ``dataset/<bench>`` folder, ``dataset/``
    or the layout root) gives one row per row folder, read by the rules of
    :mod:`codemorph.rows.codemind` (a folder that breaks one is a reject naming the file and
    the rule).  A JSON Lines row in HumanEval's or MBPP's layout (tests instead of
    ``input``/``output``) gives one ``call`` row per assertion with a literal expected value
    (:mod:`codemorph.rows.testformats`); one that gives none is a reject.  A file whose name
    ends in ``.gz`` is read through gzip (``HumanEval.jsonl.gz``).

    Raises:
        InputError: the path does not exist, is a directory without shards, or holds no
            rows at all; a Parquet file is unreadable, lacks a required column or has a
            column of the wrong type (checked for every shard before the first row), or
            pyarrow is not installed.
    """
    if Path(path).is_dir() and is_codemind_layout(path):
        yield from _codemind_rows(Path(path), max_code_chars)
        return
    files = input_files(path)
    for f in files:
        if _is_parquet(f):
            _parquet_file(f)  # every schema before the first row: a bad shard fails the run up front
    seen: dict[str, int] = {}
    count = 0
    for index, f in enumerate(files):
        ctx = _Ctx(f, index, files, seen, max_code_chars)
        rows = _parquet_rows(ctx) if _is_parquet(f) else _jsonl_rows(ctx)
        for item in rows:
            count += 1
            yield item
    if count == 0:
        raise InputError(_empty_message(path))


def _derived_from(rid: str, prefixes: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """``(prefix, P)`` for every way ``rid`` reads as ``P:<prefix>:...``."""
    for pre in prefixes:
        mark = f":{pre}:"
        k = rid.find(mark)
        while k != -1:
            yield pre, rid[:k]
            k = rid.find(mark, k + 1)


def guard_derived_ids(items: Iterable[SourceRow | Reject], suffixes: Iterable[str],
                      prefixes: Iterable[str] = ("perturb",)) -> Iterator[SourceRow | Reject]:
    """Reject rows whose id would collide with an id a job derives from another row.

    ``generate`` writes the variant of row ``x`` made by variant ``v`` as ``x:v`` (and
    ``perturb`` writes ``x:perturb:<target>:<n>``), so an input holding both ``x`` and
    ``x:v`` would give one output id two ground truths.  Of two such rows, the one read
    second becomes a :class:`Reject` (stage ``read``) naming the other; everything else
    passes through unchanged and in order.

    Args:
        items: rows as :func:`read_rows` yields them.
        suffixes: the variant names of the run (derived ids ``<id>:<suffix>``).
        prefixes: derived-id families ``<id>:<prefix>:...`` (default: ``perturb``).

    Memory: one set entry per row id read (about 100 bytes each).
    """
    suffixes = tuple(dict.fromkeys(suffixes))
    prefixes = tuple(prefixes)
    seen: set[str] = set()
    derived_parents: set[str] = set()  # P for every id read of the form P:<prefix>:...
    for item in items:
        if isinstance(item, SourceRow):
            rid = item.id
            clash = None
            head, sep, tail = rid.rpartition(":")
            if sep and tail in suffixes and head in seen:
                clash = f"id {rid!r} is the id of variant {tail!r} of row {head!r}"
            if clash is None:
                for pre, parent in _derived_from(rid, prefixes):
                    if parent in seen:
                        clash = f"id {rid!r} has the form of a {pre} row derived from row {parent!r}"
                        break
            if clash is None and rid in derived_parents:
                clash = "an earlier row's id has the form of a row derived from this one (<id>:<family>:...)"
            if clash is None:
                for v in suffixes:
                    if f"{rid}:{v}" in seen:
                        clash = f"its variant {v!r} would get the id {rid}:{v}, which an earlier row already has"
                        break
            if clash is not None:
                item = Reject(rid, item.line, "read", f"row {rid!r} ({item.place}): {clash}; output ids must "
                              f"be unique (rename one of the two rows)", row_json(item), file=item.file)
            else:
                seen.add(rid)
                derived_parents.update(parent for _, parent in _derived_from(rid, prefixes))
        yield item


def count_rows(path: str | os.PathLike[str]) -> int:
    """How many rows :func:`read_rows` will yield for ``path`` (non-blank lines of JSON
    Lines files, rows of Parquet files from their footers), without parsing them.

    Meant to run before a job streams ``read_rows(path)``: it raises every file-level
    error of :func:`read_rows` up front (before an output file is opened), and gives the
    total of a progress bar over a corpus too large to hold in memory.  Costs one read of
    each JSON Lines file (no JSON parsing) and one footer per Parquet file.

    Raises:
        InputError: the errors of :func:`input_files`; an unreadable Parquet file or a bad
            Parquet schema; no rows at all (the message of :func:`read_rows`).
    """
    if Path(path).is_dir() and is_codemind_layout(path):
        total = sum(1 for _ in read_codemind_records(path))
        if total == 0:
            raise InputError(_empty_message(path))
        return total
    files = input_files(path)
    for f in files:
        if _is_parquet(f):
            _parquet_file(f)
    total = 0
    for f in files:
        if _is_parquet(f):
            total += _parquet_file(f).metadata.num_rows
            continue
        with _open_jsonl(f) as fh, _damage_reported(f):
            for raw in fh:
                if raw.strip():
                    total += _expanded_count(raw)
    if total == 0:
        raise InputError(_empty_message(path))
    return total


def _open_jsonl(path: Path) -> IO[bytes]:
    """A JSON Lines file opened for reading bytes (through gzip when its name ends in ``.gz``)."""
    if path.name.lower().endswith(GZIP_SUFFIX):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


@contextmanager
def _damage_reported(path: Path) -> Iterator[None]:
    """Turn the errors of reading a damaged gzip file (truncated: ``EOFError``; a bad CRC,
    length or header: ``gzip.BadGzipFile``; corrupt data: ``zlib.error``) into an
    :class:`InputError` naming the file and the damage."""
    try:
        yield
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise InputError(f"{path}: the gzip file is damaged ({exc}); expected a complete gzip file of JSON Lines "
                         f"rows (check it with `gzip -t {path}`, and copy or download it again)") from None


def _expanded_count(raw: bytes) -> int:
    """How many rows one JSON Lines line gives: 1, or for a HumanEval/MBPP-layout row the
    number of its call rows (at least 1: a row that gives none is one reject)."""
    if b'"test_list"' not in raw and b'"canonical_solution"' not in raw:
        return 1
    try:
        row = json.loads(raw)
    except (ValueError, RecursionError):
        return 1
    if not isinstance(row, dict) or is_test_format(row) is None:
        return 1
    return max(1, len(test_rows(row)[0]))


def _codemind_rows(path: Path, max_code_chars: int) -> Iterator[SourceRow | Reject]:
    """The rows of a CodeMind/ExeRScope layout folder (see :func:`read_rows`)."""
    seen: dict[str, int] = {}
    count = 0
    for n, rec in enumerate(read_codemind_records(path), 1):
        count += 1
        ctx = _Ctx(rec.folder, 0, [rec.folder], seen, max_code_chars)
        row = rec.to_row()
        where = f"folder {rec.folder}"
        if isinstance(row, str):
            yield Reject(rec.id, n, "read", f"{where} (row {rec.id!r}): {row}",
                         {"id": rec.id, "bench": rec.bench, "folder": str(rec.folder)}, file=str(rec.folder))
            continue
        item = _check_row(ctx, n, row, where, "row", "field")
        yield replace(item, where=where) if isinstance(item, SourceRow) else item
    if count == 0:
        raise InputError(_empty_message(path))


def _empty_message(path: str | os.PathLike[str]) -> str:
    return (f"{path}: the file is empty; expected JSON Lines or Parquet rows with fields "
            f"{', '.join(REQUIRED_FIELDS)}")


@dataclass
class _Ctx:
    path: Path
    index: int
    files: list[Path]
    seen: dict[str, int]
    max_code_chars: int

    def first_seen(self, code: int) -> str:
        """Where an id was first seen, from its ``seen`` code (file index * 2**32 + line)."""
        index, line = divmod(code, 1 << 32)
        unit = "row" if _is_parquet(self.files[index]) else "line"
        return f"{unit} {line}" if len(self.files) == 1 else f"{unit} {line} of {self.files[index]}"


def _lone_surrogate(text: Any) -> int | None:
    """Index of the first lone surrogate (U+D800..U+DFFF) in ``text``, or ``None``.  JSON
    can hold one (``"\\ud800"``); Python source cannot (``compile`` raises
    ``UnicodeEncodeError``), nor can a UTF-8 file."""
    if not isinstance(text, str):
        return None
    try:
        text.encode("utf-8")
        return None
    except UnicodeEncodeError as exc:
        return exc.start


def _lines(fh: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` of the non-blank lines of an open JSON Lines file, a UTF-8
    byte order mark (Windows tools) dropped from the first."""
    for lineno, raw in enumerate(fh, 1):
        if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if raw.strip():
            yield lineno, raw


def _jsonl_rows(ctx: _Ctx) -> Iterator[SourceRow | Reject]:
    with _open_jsonl(ctx.path) as fh, _damage_reported(ctx.path):
        for lineno, raw in _lines(fh):
            yield from _parse_line(ctx, lineno, raw)


def _parse_line(ctx: _Ctx, lineno: int, raw: bytes) -> Iterator[SourceRow | Reject]:
    where = f"{ctx.path}:{lineno}"
    for item in _line_objects(ctx.path, lineno, raw):
        yield item if isinstance(item, Reject) else _check_row(ctx, lineno, item, where, "row", "field")


def row_objects(path: str | os.PathLike[str]) -> Iterator[tuple[str, dict[str, Any] | Reject]]:
    """The rows of ``path`` as JSON objects, read exactly as :func:`read_rows` reads them
    (the same files: JSON Lines, ``.gz``, Parquet, shard folders, glob patterns; a UTF-8
    byte order mark skipped; a HumanEval- or MBPP-layout line expanded into its ``call``
    rows by :func:`codemorph.rows.testformats.test_rows`), but not validated as input rows
    of ``generate``: for readers with rules of their own (``codemorph evaluate`` reads rows
    whose ``output`` is null and which carry an ``exception``).

    Yields:
        ``(where, item)``: ``where`` names the file and line (``"d.jsonl:4"``; Parquet:
        ``"d.parquet: row 4"``); ``item`` is the row's dict, or a :class:`Reject` for a
        line that is not UTF-8, not JSON, not an object, or a HumanEval/MBPP row that gives
        no row (its ``reason`` says which, naming file and line).

    Raises:
        InputError: the file-level errors of :func:`read_rows` (no such file, a folder
            without shards, an unreadable Parquet file, no rows at all); a CodeMind/ExeRScope
            folder (its rows are files, not JSON objects: :func:`read_rows` reads them).
    """
    if Path(path).is_dir() and is_codemind_layout(path):
        raise InputError(f"{path}: a CodeMind/ExeRScope folder, not JSON Lines or Parquet rows")
    files = input_files(path)
    for f in files:
        if _is_parquet(f):
            _parquet_file(f)
    count = 0
    for f in files:
        if _is_parquet(f):
            pa = _pyarrow()
            n = 0
            try:
                for batch in _parquet_file(f).iter_batches(batch_size=PARQUET_BATCH_ROWS):
                    for row in batch.to_pylist():
                        n += 1
                        count += 1
                        yield f"{f}: row {n}", row
            except (pa.ArrowException, OSError) as exc:
                raise InputError(f"{f}: unreadable after row {n} ({exc})") from None
            continue
        with _open_jsonl(f) as fh:
            try:
                for lineno, raw in _lines(fh):
                    for item in _line_objects(f, lineno, raw):
                        count += 1
                        yield f"{f}:{lineno}", item
            except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError; a truncated .gz an EOFError
                raise InputError(f"{f}: unreadable ({exc})") from None
    if count == 0:
        raise InputError(_empty_message(path))


def _line_objects(path: Path, lineno: int, raw: bytes) -> Iterator[dict[str, Any] | Reject]:
    """The row dicts of one JSON Lines line (one, or a HumanEval/MBPP row's ``call`` rows),
    or one :class:`Reject` saying why the line gives none."""
    where = f"{path}:{lineno}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        yield Reject(None, lineno, "read", f"{where}: not UTF-8 ({exc.reason} at byte {exc.start})",
                     raw.decode("utf-8", "replace"), file=str(path))
        return
    try:
        row = json.loads(text.rstrip("\r\n"))  # an error at the end points into the line, not past it
    except json.JSONDecodeError as exc:
        yield Reject(None, lineno, "read", f"{where}: not valid JSON ({exc.msg} at column {exc.colno})",
                     text.rstrip("\n"), file=str(path))
        return
    except RecursionError:
        yield Reject(None, lineno, "read", f"{where}: not valid JSON we can read (nested too deeply)",
                     text.rstrip("\n")[:200], file=str(path))
        return
    if not isinstance(row, dict):
        yield Reject(None, lineno, "read", f"{where}: expected a JSON object, got {type(row).__name__}", row,
                     file=str(path))
        return
    fmt = is_test_format(row)
    if fmt is None:
        partial = incomplete_test_format(row)
        if partial is not None:
            # a HumanEval/MBPP row missing a field of its layout: say which, by its task_id
            # (not codemorph's own id/code/input/output, which such a row never has)
            rid = row.get("task_id")
            label = f"{where} (task_id {rid!r})" if rid is not None else where
            yield Reject(str(rid) if rid is not None else None, lineno, "read", f"{label}: {partial[0]}", row,
                         file=str(path))
            return
        yield row
        return
    rows, _, problem = test_rows(row)
    if problem is not None:
        rid = row.get("task_id")
        yield Reject(str(rid) if rid is not None else None, lineno, "read",
                     f"{where} ({fmt} row {rid!r}): {problem}", row, file=str(path))
        return
    yield from rows


def _check_row(ctx: _Ctx, lineno: int, row: dict[str, Any], where: str, id_word: str, field_word: str
               ) -> SourceRow | Reject:
    """Validate one row (a dict from JSON or Parquet); ``where`` names the file and line/row."""
    rid = row.get("id")
    if isinstance(rid, int) and not isinstance(rid, bool):
        rid = str(rid)
    label = f"{where} ({id_word} {rid!r})" if isinstance(rid, str) else where
    problems = []
    for name in REQUIRED_FIELDS:
        value = rid if name == "id" else row.get(name)
        if name not in row:
            problems.append(f"missing {field_word} {name!r}")
        elif name == "id" and value == "":
            problems.append(f"{field_word} 'id' must not be empty (variant ids are '<id>:<variant>')")
        elif not isinstance(value, str):
            got = "null" if row[name] is None else type(row[name]).__name__
            problems.append(f"{field_word} {name!r} must be a string, got {got}")
    entry = row.get("entry_point", "f")
    if entry is None:
        entry = "f"
    if not isinstance(entry, str) or not entry.isidentifier():
        problems.append(f"{field_word} 'entry_point' must be an identifier, got {entry!r}")
    elif not entry.isascii():
        # the name Python defines and calls: identifiers are read in NFKC form (PEP 3131),
        # so ``def ｆ`` defines ``f`` and ``ｆ(1)`` calls it
        entry = unicodedata.normalize("NFKC", entry)
    kind = row.get("input_kind")
    if kind is None:
        kind = "args"
    if kind not in INPUT_KINDS:
        problems.append(f"{field_word} 'input_kind' must be one of {', '.join(INPUT_KINDS)}, got {kind!r}")
    if not problems:
        for name in ("id", "code", "input", "output", "entry_point"):
            k = _lone_surrogate(rid if name == "id" else row.get(name))
            if k is not None:
                text = rid if name == "id" else row[name]
                problems.append(f"{field_word} {name!r} holds a lone surrogate (U+{ord(text[k]):04X} at character "
                                f"{k + 1}), which Python source cannot contain and UTF-8 cannot encode")
        for name in ("code", "input"):
            limit = ctx.max_code_chars
            if name == "input" and kind == "stdin":
                limit = max(limit, MAX_STDIN_CHARS)
            if len(row[name]) > limit:
                problems.append(f"{field_word} {name!r} has {len(row[name]):,} characters, over the limit of "
                                f"{limit:,}")
    if problems:
        return Reject(rid if isinstance(rid, str) else None, lineno, "read", f"{label}: " + "; ".join(problems), row,
                      file=str(ctx.path))
    if rid in ctx.seen:
        return Reject(rid, lineno, "read", f"{label}: duplicate id (first seen on {ctx.first_seen(ctx.seen[rid])})",
                      row, file=str(ctx.path))
    ctx.seen[rid] = (ctx.index << 32) + lineno
    extra = {k: v for k, v in row.items() if k not in REQUIRED_FIELDS and k not in ("entry_point", "input_kind")}
    return SourceRow(rid, row["code"], row["input"], row["output"], entry, lineno, extra, file=str(ctx.path),
                     where=ctx.first_seen((ctx.index << 32) + lineno), input_kind=kind)


# -- Parquet --------------------------------------------------------------------------------
def _pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise InputError("reading Parquet input needs pyarrow: pip install 'codemorph[parquet]'") from None
    return pyarrow


def _parquet_file(path: Path):
    """The opened ``pyarrow.parquet.ParquetFile`` of ``path``, its schema checked.

    Raises:
        InputError: pyarrow missing, not a Parquet file, or a schema problem (see
            :func:`read_rows`), naming the file, the column and what was expected.
    """
    pa = _pyarrow()
    try:
        pf = pa.parquet.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{path}: not a readable Parquet file ({exc})") from None
    schema = pf.schema_arrow
    problems = []
    for name in REQUIRED_FIELDS:
        if schema.get_field_index(name) < 0:
            problems.append(f"no column {name!r}")
            continue
        typ = schema.field(name).type
        if not (_is_string(pa, typ) or name == "id" and pa.types.is_integer(typ)):
            want = "a string or integer column" if name == "id" else "a string column"
            problems.append(f"column {name!r} has type {typ}, expected {want}")
    if schema.get_field_index("entry_point") >= 0:
        typ = schema.field("entry_point").type
        if not (_is_string(pa, typ) or pa.types.is_null(typ)):
            problems.append(f"column 'entry_point' has type {typ}, expected a string column")
    for f in schema:
        if f.name not in REQUIRED_FIELDS and f.name != "entry_point" and not _json_type(pa, f.type):
            problems.append(f"column {f.name!r} has type {f.type}, which JSON output cannot hold "
                            f"(cast it to string or drop it)")
    if problems:
        raise InputError(f"{path}: " + "; ".join(problems) + f"; expected columns {', '.join(REQUIRED_FIELDS)} "
                         f"(strings; id may be an integer), optionally entry_point (string)")
    return pf


def _is_string(pa, typ) -> bool:
    if pa.types.is_dictionary(typ):
        typ = typ.value_type
    return pa.types.is_string(typ) or pa.types.is_large_string(typ) or \
        (hasattr(pa.types, "is_string_view") and pa.types.is_string_view(typ))


def _json_type(pa, typ) -> bool:
    """Whether values of Arrow type ``typ`` become JSON-representable Python values."""
    t = pa.types
    if _is_string(pa, typ) or t.is_integer(typ) or t.is_floating(typ) or t.is_boolean(typ) or t.is_null(typ):
        return True
    if t.is_list(typ) or t.is_large_list(typ) or t.is_fixed_size_list(typ):
        return _json_type(pa, typ.value_type)
    if t.is_struct(typ):
        return all(_json_type(pa, typ.field(i).type) for i in range(typ.num_fields))
    return False


def _parquet_rows(ctx: _Ctx) -> Iterator[SourceRow | Reject]:
    pa = _pyarrow()
    pf = _parquet_file(ctx.path)
    n = 0
    try:
        for batch in pf.iter_batches(batch_size=PARQUET_BATCH_ROWS):
            for row in batch.to_pylist():
                n += 1
                yield _check_row(ctx, n, row, f"{ctx.path}: row {n}", "id", "column")
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{ctx.path}: unreadable after row {n} ({exc})") from None


class RowWriter:
    """Append rows to a JSON Lines file, one ``json.dumps`` line each, flushed per row group.

    Args:
        path: output file; ``append=True`` keeps what is there (resume).
    """

    def __init__(self, path: str | os.PathLike[str], append: bool = False) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            raise InputError(f"{self.path.parent}: output directory does not exist")
        self._fh: IO[str] = open(self.path, "a" if append else "w", encoding="utf-8")
        self.count = 0

    def write(self, row: dict[str, Any]) -> None:
        """Write one row.  Non-ASCII text is written as UTF-8; a row holding a lone surrogate
        (which UTF-8 cannot encode: e.g. the id or code of a rejected row) is written with
        ``\\uXXXX`` escapes instead (``json.loads`` reads it back unchanged).

        Raises:
            OutputWriteError: the file could not be written (a full disk...)."""
        try:
            try:
                self._fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            except UnicodeEncodeError:  # the text layer encodes the whole line first: nothing was written
                self._fh.write(json.dumps(row, ensure_ascii=True) + "\n")
        except OSError as exc:
            raise OutputWriteError(self.path, exc) from None
        self.count += 1

    def flush(self) -> None:
        """Flush the rows written to the operating system and to the disk (``fsync``).

        Raises:
            OutputWriteError: the file could not be written."""
        try:
            self._fh.flush()
            os.fsync(self._fh.fileno())
        except OSError as exc:
            raise OutputWriteError(self.path, exc) from None

    def _flush_buffer(self) -> None:
        """Hand the buffered rows to the operating system (no ``fsync``); raises
        :class:`OutputWriteError`."""
        try:
            self._fh.flush()
        except OSError as exc:
            raise OutputWriteError(self.path, exc) from None

    def size(self) -> int:
        """The file's size in bytes, as the operating system has it."""
        return os.fstat(self._fh.fileno()).st_size

    def close(self) -> None:
        """Flush and close the file.

        Raises:
            OutputWriteError: the buffered rows could not be written (the file is closed)."""
        if not self._fh.closed:
            try:
                self._fh.close()  # flushes first; closed even when that fails
            except OSError as exc:
                raise OutputWriteError(self.path, exc) from None

    def abandon(self) -> None:
        """Close the file after a failure, dropping what could not be written (a later
        ``--resume`` truncates the file to its last checkpoint anyway)."""
        try:
            self._fh.close()
        except OSError:
            pass

    def __enter__(self) -> "RowWriter":
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.close()
        else:  # the run is failing already: closing must not raise a second error over the first
            self.abandon()


def progress_path(out_path: str | os.PathLike[str]) -> Path:
    """The checkpoint file of ``out_path``: ``out.jsonl`` -> ``out.progress.jsonl``."""
    p = Path(out_path)
    stem = p.name[: -len(".jsonl")] if p.name.endswith(".jsonl") else p.name
    return p.with_name(stem + ".progress.jsonl")


def checkpoint_rows(path: str | os.PathLike[str]) -> int:
    """Input rows done according to the checkpoint file ``path`` (see :class:`Checkpoint`):
    the ``rows`` of its last complete line; 0 when the file is missing, unreadable or has
    no row group yet.  Reads only: what ``--resume`` would keep, without truncating anything."""
    try:
        lines = Path(path).read_bytes().split(b"\n")[:-1]  # the part after the last newline is torn or empty
    except OSError:
        return 0
    rows = 0
    for raw in lines[1:]:
        try:
            rows = int(json.loads(raw)["rows"])
        except (ValueError, TypeError, KeyError):
            break
    return rows


class Checkpoint:
    """Crash-safe progress of a run that writes row groups to several JSON Lines files.

    The checkpoint file starts with a header line ``{"run": <settings>}`` and gets one line
    ``{"rows": n, "sizes": [bytes, ...]}`` after every row group, written only once the
    group is complete in every data file (their buffers flushed to the operating system, so
    a ``kill -9`` loses nothing that the checkpoint names).  To resume, :meth:`restore`
    reads the last complete line (a torn last line is ignored), truncates each data file to
    the size it records (dropping partial groups and partial lines) and returns how many
    input rows are done.

    Args:
        path: the checkpoint file (see :func:`progress_path`).
        run: JSON-able description of the run's settings; resuming with different settings
            raises :class:`~codemorph.InputError`.
    """

    def __init__(self, path: str | os.PathLike[str], run: Any) -> None:
        self.path = Path(path)
        self.run = json.loads(json.dumps(run, sort_keys=True, default=repr))
        self._fh: IO[str] | None = None
        if not self.path.parent.exists():
            raise InputError(f"{self.path.parent}: output directory does not exist")

    def restore(self, data_paths: list[Path]) -> int:
        """Truncate ``data_paths`` to the last checkpoint; returns the input rows done
        (0 when there is no checkpoint, in which case the data files are emptied).

        Raises:
            InputError: the checkpoint belongs to a run with other settings, or a data
                file is shorter than the checkpoint says (it was changed since).
        """
        rows, sizes = 0, [0] * len(data_paths)
        if self.path.exists():
            lines = self.path.read_bytes().split(b"\n")
            complete = []
            for raw in lines[:-1]:  # the part after the last newline is torn or empty
                try:
                    complete.append(json.loads(raw))
                except ValueError:
                    break
            if complete:
                if not isinstance(complete[0], dict) or complete[0].get("run") != self.run:
                    raise InputError(f"{self.path}: the checkpoint is from a run with other settings "
                                     f"(input, transforms, seed or limits); rerun without --resume")
                for c in complete[1:]:
                    rows, sizes = int(c["rows"]), list(c["sizes"])
        for p, size in zip(data_paths, sizes):
            have = p.stat().st_size if p.exists() else 0
            if have < size:
                raise InputError(f"{p}: {have} bytes, but the checkpoint {self.path} records {size}; "
                                 f"the file changed since; rerun without --resume")
            with open(p, "ab") as fh:
                fh.truncate(size)
        # rewrite the checkpoint compactly: header and the point we resume from
        self._rewrite([{"run": self.run}] + ([{"rows": rows, "sizes": sizes}] if rows else []))
        return rows

    def _rewrite(self, lines: list[dict[str, Any]]) -> None:
        try:
            with open(self.path, "w", encoding="utf-8") as fh:
                for line in lines:
                    fh.write(json.dumps(line, sort_keys="run" in line) + "\n")
        except OSError as exc:
            raise OutputWriteError(self.path, exc) from None

    def start(self) -> None:
        """Begin a fresh checkpoint (no rows done).

        Raises:
            OutputWriteError: the checkpoint file could not be written."""
        self._rewrite([{"run": self.run}])

    def mark(self, rows: int, writers: list["RowWriter"]) -> None:
        """Record that the first ``rows`` input rows are complete in every writer's file
        (flushes the writers first).

        Raises:
            OutputWriteError: a writer's file or the checkpoint file could not be written
                (a full disk): the checkpoint still names the last row group complete before
                (a torn last line is ignored by :meth:`restore`)."""
        for w in writers:
            w._flush_buffer()
        try:
            if self._fh is None:
                self._fh = open(self.path, "a", encoding="utf-8")
            self._fh.write(json.dumps({"rows": rows, "sizes": [w.size() for w in writers]}) + "\n")
            self._fh.flush()
        except OSError as exc:
            raise OutputWriteError(self.path, exc) from None

    def close(self) -> None:
        """Close the checkpoint file (it stays on disk: resuming a finished run does nothing).
        After a failed :meth:`mark`, what could not be written is dropped."""
        if self._fh is not None and not self._fh.closed:
            try:
                self._fh.close()
            except OSError:
                pass  # a torn last line at most, which restore ignores
