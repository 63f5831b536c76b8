"""The CodeMind / ExeRScope folder layout: ``dataset/<bench>/<id>/{main.py,input.txt,output.txt}``.

CodeMind (Intelligent-CAT-Lab/CodeMind) and ExeRScope (Intelligent-CAT-Lab/ExeRScope) keep
one folder per program: ``main.py`` (the program), ``input.txt`` and ``output.txt``.  How
the program is run depends on the bench:

========== ============ =====================================================================
bench      input kind   ``input.txt``
========== ============ =====================================================================
cruxeval   ``args``     a call of ``f``: ``f([1, 2])``; the row's input is the argument text
humaneval  ``call``     a call of a named function: ``add(6, 8)``, the whole expression
classeval  ``call``     ``Test.test()``, which CodeMind runs as ``Test().test()`` (the row's
                        input is the expression that runs)
Avatar     ``stdin``    the program's standard input; the program runs as ``__main__``
========== ============ =====================================================================

A bench folder with another name gets its kind from its inputs: every ``input.txt`` a call
of ``f`` -> ``args``; every one an expression whose outermost node is a call -> ``call``;
otherwise ``stdin``.

Recorded outputs are text as CodeMind writes it.  :func:`read_output` turns that text into
the row's ``output`` by these rules (the reject of a row names the rule that failed):

* ``args`` rows (CRUXEval's): the text is the ``repr`` of the result, as in CRUXEval's
  data; surrounding whitespace is removed.
* ``call`` rows: the text is what ``print(result)`` wrote, so ``str``, not ``repr`` (a
  ``str`` result ``0b11`` is recorded without quotes); line ends around it are removed, then:

  1. *literal*: the text is a Python literal whose ``str`` is the text itself (``[1, 2]``,
     ``(1, 'a')``, ``-4``, ``0.5``, ``True``, ``None``): the output is the text.
  2. *float*: ``nan``, ``inf``, ``-inf``: the output is ``float('nan')`` and so on.
  3. *object*: text of the form ``<... object at 0x...>`` is the ``str`` of an object
     without a literal; such a row cannot be checked and is rejected.
  4. *str*: anything else is a ``str`` result (``010010``, ``SELECT ...``, the empty
     text): the output is its ``repr``.

  A ``str`` result whose text reads as a literal (a ``str`` ``'6'`` recorded as ``6``) is
  read as that literal by rule 1; re-execution then rejects the row (the recorded output
  does not match).
* ``stdin`` rows: the output is the recorded standard output with Windows (``\\r\\n``) and
  old Mac (``\\r``) line ends made ``\\n``; nothing else changes.  :func:`same_stdout`
  compares standard outputs.

``input.txt`` of a ``stdin`` row gets the same line-end rule, and a final ``\\n`` when its
last line has none (what ``python main.py < input.txt`` reads is the same).

Reading never raises for a bad *row* folder: it becomes a
:class:`~codemorph.rows.schema.Reject` (stage ``read``).  Only a path that is not such a
layout raises :class:`~codemorph.InputError`.
"""

from __future__ import annotations

import ast
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from codemorph.errors import InputError

__all__ = ["CODEMIND_FILES", "BENCH_KINDS", "CodemindRecord", "is_codemind_layout", "codemind_benches",
           "bench_kind", "read_codemind_records", "read_input", "read_output", "read_stdin_text", "same_stdout",
           "normalize_stdout", "layout_input", "layout_output", "layout_folder_name", "write_codemind_row",
           "CodemindWriter"]

#: the files of one row folder
CODEMIND_FILES = ("main.py", "input.txt", "output.txt")
#: input kind of each bench CodeMind and ExeRScope ship (names compared case-insensitively)
BENCH_KINDS = {"cruxeval": "args", "humaneval": "call", "classeval": "call", "avatar": "stdin"}
#: benches whose harness is a class method called on the class (``Test.test()``), which
#: CodeMind runs on an instance (``Test().test()``)
CLASS_HARNESS_BENCHES = ("classeval",)

_OBJECT_TEXT = re.compile(r"<.* at 0x[0-9a-fA-F]+>", re.S)
_FLOATS = {"nan": "float('nan')", "inf": "float('inf')", "-inf": "float('-inf')"}


@dataclass(frozen=True)
class CodemindRecord:
    """One row folder of the layout as read, before interpretation.

    Attributes:
        id: the row id: the folder name, or ``<bench>/<folder name>`` when several benches
            are read together.
        bench: the bench folder name (``"humaneval"``).
        kind: the bench's input kind (``"args"``, ``"call"`` or ``"stdin"``).
        folder: the row folder.
        code, input_text, output_text: the three files as text (``None`` when missing or
            not UTF-8; see :attr:`problem`).
        problem: why the folder cannot be read, else ``None``.
    """

    id: str
    bench: str
    kind: str
    folder: Path
    code: str | None
    input_text: str | None
    output_text: str | None
    problem: str | None = None

    def to_row(self) -> dict[str, Any] | str:
        """The row as a JSON-like dict (``id``, ``code``, ``input``, ``output``,
        ``entry_point``, ``input_kind``, ``bench``), or the reason it cannot be read
        (a str naming the file and the rule that failed)."""
        if self.problem is not None:
            return self.problem
        assert self.code is not None and self.input_text is not None and self.output_text is not None
        try:
            entry, inp = read_input(self.input_text, self.kind, self.code)
        except ValueError as exc:
            return f"input.txt: {exc}"
        try:
            out = read_output(self.output_text, self.kind)
        except ValueError as exc:
            return f"output.txt: {exc}"
        return {"id": self.id, "code": self.code, "input": inp, "output": out, "entry_point": entry,
                "input_kind": self.kind, "bench": self.bench}


def _has_rows(folder: Path) -> bool:
    try:
        return any(d.is_dir() and (d / "main.py").is_file() for d in folder.iterdir())
    except OSError:
        return False


def is_codemind_layout(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a folder of the layout: a bench folder (row folders holding
    ``main.py``), a ``dataset`` folder of bench folders, or a layout root holding
    ``dataset/``."""
    p = Path(path)
    return p.is_dir() and bool(_bench_folders(p))


def _bench_folders(p: Path) -> list[Path]:
    if _has_rows(p):
        return [p]
    root = p / "dataset" if (p / "dataset").is_dir() else p
    try:
        return sorted((d for d in root.iterdir() if d.is_dir() and _has_rows(d)), key=lambda d: d.name)
    except OSError:
        return []


def codemind_benches(path: str | os.PathLike[str], bench: str | None = None) -> list[Path]:
    """The bench folders ``path`` names (sorted by name), or only ``bench``.

    Raises:
        InputError: not a layout folder, or no bench folder named ``bench`` in it.
    """
    p = Path(path)
    folders = _bench_folders(p) if p.is_dir() else []
    if not folders:
        raise InputError(f"{p}: not a CodeMind/ExeRScope data set; expected dataset/<bench>/<id>/"
                         f"{{{','.join(CODEMIND_FILES)}}}")
    if bench is not None:
        chosen = [f for f in folders if f.name == bench]
        if not chosen:
            raise InputError(f"{p}: no bench {bench!r} (found: {', '.join(f.name for f in folders)})")
        return chosen
    return folders


def _id_key(name: str) -> tuple:
    head, _, tail = name.rpartition("_")
    return (head, int(tail), "") if tail.isdigit() else (name, -1, name)


def _read_text(f: Path) -> tuple[str | None, str | None]:
    if not f.is_file():
        return None, f"missing {f.name}"
    try:
        return f.read_bytes().decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        return None, f"{f.name}: not UTF-8 ({exc.reason} at byte {exc.start})"
    except OSError as exc:
        return None, f"{f.name}: unreadable ({exc.strerror})"


def bench_kind(folder: str | os.PathLike[str]) -> str:
    """The input kind of a bench folder: from :data:`BENCH_KINDS` by name, else from its
    inputs (see the module docstring)."""
    p = Path(folder)
    known = BENCH_KINDS.get(p.name.lower())
    if known is not None:
        return known
    kinds = set()
    for d in p.iterdir():
        text, problem = _read_text(d / "input.txt") if d.is_dir() else (None, "not a folder")
        if problem is not None or text is None:
            continue
        try:
            node = ast.parse(text.strip(), mode="eval").body
        except (SyntaxError, ValueError):
            return "stdin"
        if not isinstance(node, ast.Call):
            return "stdin"
        kinds.add("args" if isinstance(node.func, ast.Name) and node.func.id == "f" else "call")
    return "args" if kinds == {"args"} else "call"


def read_codemind_records(path: str | os.PathLike[str], bench: str | None = None) -> Iterator[CodemindRecord]:
    """Every row folder of the layout at ``path`` (benches in name order, rows in id order
    with numeric suffixes in numeric order), as :class:`CodemindRecord` objects.

    Args:
        path: a bench folder, a ``dataset`` folder, or the layout root.
        bench: read this bench only (default: every bench found).  When several benches
            are read, ids are ``<bench>/<folder name>`` so they stay unique.

    Raises:
        InputError: see :func:`codemind_benches`.
    """
    folders = codemind_benches(path, bench)
    several = len(folders) > 1
    for b in folders:
        kind = bench_kind(b)
        for d in sorted((d for d in b.iterdir() if d.is_dir()), key=lambda d: _id_key(d.name)):
            texts: dict[str, str | None] = {}
            problems = []
            for name in CODEMIND_FILES:
                texts[name], problem = _read_text(d / name)
                if problem is not None:
                    problems.append(problem)
            rid = f"{b.name}/{d.name}" if several else d.name
            yield CodemindRecord(rid, b.name, kind, d, texts["main.py"], texts["input.txt"], texts["output.txt"],
                                 "; ".join(problems) or None)


def _line_ends(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_stdin_text(text: str) -> str:
    """``input.txt`` of a ``stdin`` row as the standard input: line ends made ``\\n``, and a
    final ``\\n`` when the last line has none (empty text stays empty)."""
    text = _line_ends(text)
    return text if not text or text.endswith("\n") else text + "\n"


def _class_harness(call: ast.Call, code: str) -> str | None:
    """``C.m(args)`` -> ``C().m(args)`` when ``C`` is a class the program defines at module
    level and ``m`` is one of its methods, not static or a class method; else ``None``."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    try:
        module = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    for node in module.body:
        if isinstance(node, ast.ClassDef) and node.name == func.value.id:
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == func.attr:
                    decorators = {d.id for d in item.decorator_list if isinstance(d, ast.Name)}
                    if decorators & {"staticmethod", "classmethod"}:
                        return None
                    text = ast.unparse(call)  # "C.m(...)", whatever the spacing
                    return f"{func.value.id}()" + text[len(func.value.id):]
            return None
    return None


def read_input(text: str, kind: str, code: str = "") -> tuple[str, str]:
    """``input.txt`` as ``(entry_point, input)`` of a row of input kind ``kind``.

    * ``args``: a call of a name, ``f([1, 2])`` -> ``("f", "[1, 2]")`` (the argument text verbatim);
    * ``call``: an expression whose outermost node is a call -> (the called name, the
      expression stripped of surrounding whitespace); ``C.m()`` where ``C`` is a class of
      the program and ``m`` an instance method becomes ``C().m()``, as CodeMind runs it;
    * ``stdin``: ``("__main__", the standard input)`` (see :func:`read_stdin_text`).

    Raises:
        ValueError: the text does not fit the kind (the message says which rule).
    """
    if kind == "stdin":
        return "__main__", read_stdin_text(text)
    stripped = text.strip()
    try:
        node = ast.parse(stripped, mode="eval").body
    except SyntaxError as exc:
        raise ValueError(f"not a Python expression ({exc.msg}): {stripped[:80]!r}; a {kind} row's input is a "
                         f"call") from None
    except ValueError as exc:
        raise ValueError(f"not a Python expression ({exc}): {stripped[:80]!r}") from None
    if not isinstance(node, ast.Call):
        raise ValueError(f"not a call: {stripped[:80]!r}; a {kind} row's input is a call such as f(...)")
    if kind == "args":
        if not isinstance(node.func, ast.Name):
            raise ValueError(f"not a call of a function name: {stripped[:80]!r} (an args row calls its entry point)")
        if not stripped.endswith(")"):
            raise ValueError(f"text after the call: {stripped[:80]!r}")
        open_at = stripped.index("(", len(node.func.id))
        return node.func.id, stripped[open_at + 1:-1]
    if kind != "call":
        raise ValueError(f"unknown input kind {kind!r}")
    if isinstance(node.func, ast.Name):
        return node.func.id, stripped
    if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
        as_run = _class_harness(node, code)
        if as_run is not None:
            return node.func.value.id, as_run
        return node.func.value.id, stripped
    inner = node.func
    while isinstance(inner, (ast.Attribute, ast.Call)):
        inner = inner.value if isinstance(inner, ast.Attribute) else inner.func
    if isinstance(inner, ast.Name):
        return inner.id, stripped
    raise ValueError(f"the call names no function of the program: {stripped[:80]!r}")


def read_output(text: str, kind: str) -> str:
    """``output.txt`` as the row's ``output`` (rules in the module docstring).

    Raises:
        ValueError: rule 3 (the ``str`` of an object without a literal).
    """
    if kind == "stdin":
        return _line_ends(text)
    if kind == "args":
        return text.strip()
    body = text.strip("\r\n")
    if _is_literal_text(body):
        return body
    if body.strip() in _FLOATS and body == body.strip():
        return _FLOATS[body]
    if _OBJECT_TEXT.fullmatch(body.strip()):
        raise ValueError(f"rule 'object': {body[:80]!r} is the str of an object without a literal (an address), "
                         f"so the result cannot be checked")
    return repr(body)


def _is_literal_text(body: str) -> bool:
    """Rule 1: ``body`` is a literal whose ``str`` is ``body`` itself."""
    if not body or body != body.strip():
        return False
    try:
        value = ast.literal_eval(body)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    if isinstance(value, str):
        return False  # a quoted text is the str of a str holding quotes, not a literal
    try:
        return str(value) == body
    except Exception:  # noqa: BLE001 - str of an odd literal
        return False


def normalize_stdout(text: str) -> str:
    """Standard output as compared by :func:`same_stdout`: line ends made ``\\n``, trailing
    spaces and tabs of every line removed, trailing empty lines removed."""
    lines = [ln.rstrip(" \t") for ln in _line_ends(text).split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def same_stdout(expected: str, actual: str) -> bool:
    """Whether two standard outputs are the same under the online-judge whitespace rule
    (AtCoder's and Codeforces' checkers, which Avatar's programs were written for):
    ``\\r\\n``/``\\r`` line ends equal ``\\n``, spaces and tabs at the end of a line and
    empty lines at the end are ignored; everything else (spaces inside a line, case,
    blank lines between lines) counts."""
    return normalize_stdout(expected) == normalize_stdout(actual)


# --------------------------------------------------------------------------- writing

def layout_folder_name(row_id: str, bench: str | None = None) -> str:
    """The row folder name of ``row_id``: a leading ``<bench>/`` dropped, then ``/`` -> ``_``
    (``HumanEval/0`` -> ``HumanEval_0``, as CodeMind names it) and ``:`` -> ``__`` (variant
    ids ``x:dead-code`` -> ``x__dead-code``, a name every file system takes)."""
    if bench and row_id.startswith(bench + "/"):
        row_id = row_id[len(bench) + 1:]
    return row_id.replace("/", "_").replace(":", "__")


_CLASS_CALL = re.compile(r"([A-Za-z_]\w*)\(\)\.([A-Za-z_]\w*\(.*\))", re.S)


def layout_input(row: dict[str, Any]) -> str:
    """``input.txt`` of a written row: ``args`` -> ``entry(<input>)``; ``call`` -> the
    expression (``C().m()`` back to CodeMind's ``C.m()`` for a class-harness bench);
    ``stdin`` -> the standard input verbatim."""
    kind = row.get("input_kind") or "args"
    if kind == "stdin":
        return row["input"]
    if kind == "call":
        m = _CLASS_CALL.fullmatch(row["input"])
        if m and str(row.get("bench", "")).lower() in CLASS_HARNESS_BENCHES:
            return f"{m.group(1)}.{m.group(2)}"
        return row["input"]
    return f"{row.get('entry_point') or 'f'}({row['input']})"


def layout_output(row: dict[str, Any]) -> str:
    """``output.txt`` of a written row, as the layout records it: an ``args`` row's
    ``output`` (a repr, as CRUXEval's); for a ``call`` row what ``print(result)`` writes,
    without the final newline: the ``str`` of the value a literal ``output`` denotes (a
    ``str`` without quotes), ``nan``/``inf`` for those floats, other text as it is; a
    ``stdin`` row's standard output verbatim."""
    out = row["output"]
    if (row.get("input_kind") or "args") in ("stdin", "args"):
        return out
    for text, expr in _FLOATS.items():
        if out == expr:
            return text
    try:
        value = ast.literal_eval(out)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return out
    return value if isinstance(value, str) else out


def write_codemind_row(root: str | os.PathLike[str], row: dict[str, Any], bench: str | None = None) -> Path:
    """Write one row (a JSON object as ``generate``/``perturb`` write them) as
    ``<root>/<bench>/<folder>/{main.py,input.txt,output.txt}`` and return the folder.
    ``bench``: the row's ``bench`` column, else this, else ``"dataset"``.  An exception row
    (``output`` null, ``exception: {"type": T}``) gets ``output.txt`` ``raises T``, the answer
    ``codemorph evaluate`` scores such rows by."""
    b = str(row.get("bench") or bench or "dataset")
    folder = Path(root) / b / layout_folder_name(str(row["id"]), b)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "main.py").write_text(row["code"], encoding="utf-8", newline="")
    (folder / "input.txt").write_text(layout_input(row), encoding="utf-8", newline="")
    if row.get("output") is not None:
        (folder / "output.txt").write_text(layout_output(row), encoding="utf-8", newline="")
    elif isinstance(row.get("exception"), dict) and row["exception"].get("type"):
        # an exception row: the layout has no field for it; codemorph's exception answer
        (folder / "output.txt").write_text(f"raises {row['exception']['type']}", encoding="utf-8", newline="")
    return folder


class CodemindWriter:
    """Writes the rows of a JSON Lines file (the output of ``generate`` or ``perturb``) as a
    CodeMind/ExeRScope ``dataset`` folder, one row folder per row.

    Args:
        root: the ``dataset`` folder to write into (created).
        bench: bench folder for rows without a ``bench`` column.
    """

    def __init__(self, root: str | os.PathLike[str], bench: str | None = None) -> None:
        self.root = Path(root)
        self.bench = bench
        self.count = 0
        self._names: dict[Path, str] = {}

    def write(self, row: dict[str, Any]) -> Path:
        """Write one row.

        Raises:
            InputError: two rows would share a folder (ids that differ only in ``/`` and
                ``_`` or ``:`` and ``__``).
        """
        b = str(row.get("bench") or self.bench or "dataset")
        folder = self.root / b / layout_folder_name(str(row["id"]), b)
        other = self._names.get(folder)
        if other is not None and other != row["id"]:
            raise InputError(f"rows {other!r} and {row['id']!r} would both be written to {folder}")
        self._names[folder] = str(row["id"])
        write_codemind_row(self.root, row, self.bench)
        self.count += 1
        return folder

    def write_jsonl(self, path: str | os.PathLike[str]) -> int:
        """Write every row of the JSON Lines file ``path``; returns how many."""
        n = 0
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    self.write(json.loads(line))
                    n += 1
        return n
