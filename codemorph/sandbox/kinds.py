"""Row kinds in the sandbox: the one place that turns a row (or a program and one input of
its kind) into the :class:`~codemorph.sandbox.ExecRequest` that runs it, and reads a row's
``output`` back from an :class:`~codemorph.sandbox.Outcome`.

Kinds (:data:`~codemorph.rows.INPUT_KINDS`): ``args`` (CRUXEval, ``entry_point(<input>)``),
``call`` (``input`` is a whole expression evaluated in the program's namespace after its code
ran) and ``stdin`` (the program runs as ``__main__`` with ``input`` as its standard input;
its output is the text it writes to standard output).  Every command builds its requests
through :func:`request_for` / :func:`row_request`, so the kinds run the same way everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codemorph.rows.dataset import INPUT_KINDS, call_parts
from codemorph.sandbox.pool import ExecRequest, Outcome

__all__ = ["request_for", "row_request", "output_of", "plain_call", "RunView", "run_view", "harness_class",
           "INPUT_KINDS"]


def request_for(code: str, entry_point: str, input_kind: str, text: str, *, expected_output: str | None = None,
                **options: Any) -> ExecRequest:
    """The request that runs ``code`` on the input ``text`` of kind ``input_kind``.

    Args:
        code: the program's source.
        entry_point: the function an ``args`` input is passed to (ignored by the other kinds).
        input_kind: ``"args"``, ``"call"`` or ``"stdin"``.
        text: the input: an argument-list literal (``args``), an expression, or statements
            ending with one (``call``), the standard input (``stdin``).
        expected_output: a recorded ``output`` to check in the same run
            (:attr:`~codemorph.sandbox.Outcome.output_matches`): a literal for ``args`` and
            ``call``, the verbatim standard output for ``stdin``.
        options: any other :class:`~codemorph.sandbox.ExecRequest` field (``trace``,
            ``timeout``, ``cpu_timeout``, ``max_lines``, ``types``, ``recursion_limit``,
            ``counts``).

    Raises:
        ValueError: an unknown ``input_kind``.
    """
    if input_kind == "args":
        return ExecRequest(code, entry_point, text, expected_output=expected_output, **options)
    if input_kind == "call":
        return ExecRequest(code, entry_point, text, expected_output=expected_output, input_kind="call", **options)
    if input_kind == "stdin":
        return ExecRequest(code, entry_point, "", expected_output=expected_output, input_kind="stdin", stdin=text,
                           **options)
    raise ValueError(f"input_kind must be one of {', '.join(INPUT_KINDS)}, got {input_kind!r}")


def row_request(row: Any, *, check_output: bool = True, **options: Any) -> ExecRequest:
    """The request that runs a :class:`~codemorph.rows.SourceRow` on its own input the way
    its kind says, checking its recorded ``output`` unless ``check_output`` is false;
    ``options`` as for :func:`request_for`."""
    return request_for(row.code, row.entry_point, getattr(row, "input_kind", "args"), row.input,
                       expected_output=row.output if check_output else None, **options)


def output_of(outcome: Outcome, input_kind: str) -> str | None:
    """A row's ``output`` text from the outcome of its run: the result's ``repr`` when it
    reads back as an equal literal (``args``, ``call``), the standard output verbatim
    (``stdin``); ``None`` when the run did not return or the repr is no literal."""
    if outcome.status != "returned":
        return None
    if input_kind == "stdin":
        return outcome.stdout
    return outcome.value_repr if outcome.literal_ok else None


def plain_call(text: str) -> tuple[str, str] | None:
    """:func:`codemorph.rows.call_parts`: ``(name, arguments)`` of a ``call`` input that is one
    call of a plain name, which runs exactly as the ``args`` input ``arguments`` of entry
    point ``name``."""
    return call_parts(text)


@dataclass(frozen=True)
class RunView:
    """How a row's program is run by its jobs (:func:`run_view`).

    Attributes:
        kind: the sandbox kind of the runs (``args``, ``call`` or ``stdin``).
        entry_point: the function an ``args`` input is passed to.
        input: the row's input as runs of that kind take it.
        harness_inputs: what transforms get as ``ctx.inputs`` (the texts a harness evaluates
            in the program's globals): the argument list, the call expression (and, for a
            harness call ``C().m()``, the names the method ``C.m`` reads, written as one more
            input ``"A, B"``, since the verification inputs of such a row run the original
            method with other literals against the rewritten program: renaming keeps every
            name the harness reaches), or nothing for a script.
        read_only: the top-level names no transform may change: for a harness call
            ``C().m()`` of a module-level class ``C`` (ClassEval's ``Test().test()``), ``C``,
            the harness, which is not the program under test; empty otherwise (a call of
            the function under test itself, HumanEval's ``add(6, 8)``, keeps it eligible).
    """

    kind: str
    entry_point: str
    input: str
    harness_inputs: tuple[str, ...]
    read_only: frozenset[str] = frozenset()


def run_view(row: Any, program: Any) -> RunView:
    """The :class:`RunView` of ``row``: an ``args`` row as it is; a ``call`` row whose input
    is one call of a plain name defined by a top-level ``def`` (``add(6, 8)``) as the
    ``args`` input ``6, 8`` of entry point ``add`` (so its literal arguments are mutated and
    the parameters a keyword passes are kept, as for CRUXEval); any other ``call`` row
    (``Test().test()``) as its expression; a ``stdin`` row as its standard input.

    Args:
        row: a :class:`~codemorph.rows.SourceRow`; program: its parsed
            :class:`~codemorph.engine.Program` (for the names of its top-level functions).
    """
    if row.input_kind == "call":
        parts = plain_call(row.input)
        if parts is not None and parts[0] in program.functions:
            return RunView("args", parts[0], parts[1], (parts[1],))
        reached = _harness_names(row.code, row.input)
        harness = harness_class(row.code, row.input)
        return RunView("call", row.entry_point, row.input, (row.input, reached) if reached else (row.input,),
                       frozenset({harness}) if harness else frozenset())
    if row.input_kind == "stdin":
        return RunView("stdin", row.entry_point, row.input, ())
    return RunView("args", row.entry_point, row.input, (row.input,))


def harness_class(code: str, text: str) -> str | None:
    """The module-level class ``C`` a harness call ``C().m()`` (``text``) instantiates, when
    ``code`` defines it; else ``None`` (any other call, or code that does not parse)."""
    import ast

    try:
        call = ast.parse(text.strip(), mode="eval").body
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Call) and isinstance(call.func.value.func, ast.Name)):
        return None
    name = call.func.value.func.id
    return name if any(isinstance(s, ast.ClassDef) and s.name == name for s in tree.body) else None


def _harness_names(code: str, text: str) -> str:
    """The names the method ``C.m`` of a harness call ``C().m()`` reads, as ``"A, B"``
    (sorted; ``""`` when ``text`` is no such call of a method of a module-level class)."""
    import ast

    try:
        call = ast.parse(text.strip(), mode="eval").body
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Call) and isinstance(call.func.value.func, ast.Name)):
        return ""
    cls, meth = call.func.value.func.id, call.func.attr
    names: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == cls:
            for d in stmt.body:
                if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d.name == meth:
                    names.update(n.id for n in ast.walk(d) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    return ", ".join(sorted(names))
