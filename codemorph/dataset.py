"""Reading and writing rows in JSON Lines (CRUXEval-compatible schema).

Reading never raises for a bad *row*: each line becomes either a :class:`SourceRow` or a
:class:`Reject` that says what is wrong and where (file, line, row id).  Only a problem
with the *file* itself (missing, a directory, empty) raises :class:`~codemorph.InputError`.
"""

from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import IO, Any, Iterator

from .errors import InputError

__all__ = ["SourceRow", "Reject", "read_rows", "RowWriter", "rejects_path", "progress_path", "Checkpoint", "input_files",
           "default_dataset_path", "REQUIRED_FIELDS", "MAX_CODE_CHARS"]

#: fields every input row must carry, each a string
REQUIRED_FIELDS = ("id", "code", "input", "output")
#: characters; a row whose ``code`` or ``input`` is longer is rejected (CRUXEval programs are
#: under 1,000 characters; parsing and rewriting grow faster than linearly with size)
MAX_CODE_CHARS = 100_000


@dataclass(frozen=True)
class SourceRow:
    """One valid input row.

    Attributes:
        id: the row id (str; an int id is converted).
        code: program source; input: argument-list literal; output: repr of the expected value.
        entry_point: function to call (``"f"`` unless the row has ``entry_point``).
        line: 1-based line number in the input file.
        extra: every other field of the row, kept as is.
    """

    id: str
    code: str
    input: str
    output: str
    entry_point: str
    line: int
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reject:
    """A row that could not be processed.

    Attributes:
        id: the row id when known, else ``None``.
        line: 1-based line in the input file.
        stage: where it failed: ``read``, ``parse``, ``input``, ``execute``, ``verify``...
        reason: what was wrong and what was expected.
        row: the row as read (a dict), or the raw text when it was not JSON, so nothing is lost.
    """

    id: str | None
    line: int
    stage: str
    reason: str
    row: Any = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "line": self.line, "stage": self.stage, "reason": self.reason, "row": self.row}


def default_dataset_path() -> Path:
    """The small CRUXEval-format data set bundled with codemorph (used when no input is given)."""
    return Path(str(resources.files("codemorph.data").joinpath("default.jsonl")))


def rejects_path(out_path: str | os.PathLike[str]) -> Path:
    """Where the rejects of ``out_path`` go: ``out.jsonl`` -> ``out.rejects.jsonl``."""
    p = Path(out_path)
    stem = p.name[: -len(".jsonl")] if p.name.endswith(".jsonl") else p.name
    return p.with_name(stem + ".rejects.jsonl")


def input_files(path: str | os.PathLike[str]) -> list[Path]:
    """The JSON Lines files ``path`` names: the file itself, the ``*.jsonl`` shards of a
    directory (sorted by name), or the files a glob pattern such as ``"corpus/part-*.jsonl"``
    matches (sorted).

    Raises:
        InputError: nothing exists there, the directory has no ``.jsonl`` file, or the
            pattern matches no file.
    """
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.glob("*.jsonl") if f.is_file())
        if not files:
            raise InputError(f"{p}: is a directory with no .jsonl shards, expected a JSON Lines file "
                             f"or a directory of them")
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
    """Yield a :class:`SourceRow` or a :class:`Reject` for every non-blank line of ``path``:
    a JSON Lines file, a directory of ``*.jsonl`` shards or a glob pattern (see
    :func:`input_files`; shards are read in name order, ids must be unique across them, and
    line numbers are per shard).

    ``max_code_chars``: rows whose ``code`` or ``input`` has more characters are rejected.

    Raises:
        InputError: when the file does not exist, is a directory without shards, or holds no
            rows at all.
    """
    files = input_files(path)
    seen: dict[str, Any] = {}
    count = 0
    for f in files:
        with open(f, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                count += 1
                yield _parse_line(f, lineno, raw, seen, max_code_chars, shard=len(files) > 1)
    if count == 0:
        raise InputError(f"{path}: the file is empty; expected JSON Lines rows with fields "
                         f"{', '.join(REQUIRED_FIELDS)}")


def _parse_line(path: Path, lineno: int, raw: bytes, seen: dict[str, Any],
                max_code_chars: int = MAX_CODE_CHARS, shard: bool = False) -> SourceRow | Reject:
    where = f"{path}:{lineno}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Reject(None, lineno, "read", f"{where}: not UTF-8 ({exc.reason} at byte {exc.start})",
                      raw.decode("utf-8", "replace"))
    try:
        row = json.loads(text.rstrip("\r\n"))  # an error at the end points into the line, not past it
    except json.JSONDecodeError as exc:
        return Reject(None, lineno, "read", f"{where}: not valid JSON ({exc.msg} at column {exc.colno})", text.rstrip("\n"))
    if not isinstance(row, dict):
        return Reject(None, lineno, "read", f"{where}: expected a JSON object, got {type(row).__name__}", row)
    rid = row.get("id")
    if isinstance(rid, int) and not isinstance(rid, bool):
        rid = str(rid)
    label = f"{where} (row {rid!r})" if isinstance(rid, str) else where
    problems = []
    for name in REQUIRED_FIELDS:
        value = rid if name == "id" else row.get(name)
        if name not in row:
            problems.append(f"missing field {name!r}")
        elif not isinstance(value, str):
            problems.append(f"field {name!r} must be a string, got {type(row[name]).__name__}")
    entry = row.get("entry_point", "f")
    if entry is None:
        entry = "f"
    if not isinstance(entry, str) or not entry.isidentifier():
        problems.append(f"field 'entry_point' must be an identifier, got {entry!r}")
    if not problems:
        for name in ("code", "input"):
            if len(row[name]) > max_code_chars:
                problems.append(f"field {name!r} has {len(row[name]):,} characters, over the limit of "
                                f"{max_code_chars:,}")
    if problems:
        return Reject(rid if isinstance(rid, str) else None, lineno, "read", f"{label}: " + "; ".join(problems), row)
    if rid in seen:
        return Reject(rid, lineno, "read", f"{label}: duplicate id (first seen on line {seen[rid]})", row)
    seen[rid] = f"{lineno} of {path}" if shard else lineno
    extra = {k: v for k, v in row.items() if k not in REQUIRED_FIELDS and k != "entry_point"}
    return SourceRow(rid, row["code"], row["input"], row["output"], entry, lineno, extra)


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
        self._fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        self.count += 1

    def flush(self) -> None:
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.flush()
            self._fh.close()

    def __enter__(self) -> "RowWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress_path(out_path: str | os.PathLike[str]) -> Path:
    """The checkpoint file of ``out_path``: ``out.jsonl`` -> ``out.progress.jsonl``."""
    p = Path(out_path)
    stem = p.name[: -len(".jsonl")] if p.name.endswith(".jsonl") else p.name
    return p.with_name(stem + ".progress.jsonl")


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
        with open(self.path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"run": self.run}, sort_keys=True) + "\n")
            if rows:
                fh.write(json.dumps({"rows": rows, "sizes": sizes}) + "\n")
        return rows

    def start(self) -> None:
        """Begin a fresh checkpoint (no rows done)."""
        with open(self.path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"run": self.run}, sort_keys=True) + "\n")

    def mark(self, rows: int, writers: list["RowWriter"]) -> None:
        """Record that the first ``rows`` input rows are complete in every writer's file
        (flushes the writers first)."""
        for w in writers:
            w._fh.flush()
        if self._fh is None:
            self._fh = open(self.path, "a", encoding="utf-8")
        self._fh.write(json.dumps({"rows": rows, "sizes": [os.fstat(w._fh.fileno()).st_size for w in writers]})
                       + "\n")
        self._fh.flush()

    def close(self) -> None:
        """Close the checkpoint file (it stays on disk: resuming a finished run does nothing)."""
        if self._fh is not None and not self._fh.closed:
            self._fh.close()
