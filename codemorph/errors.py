"""Exception classes raised by codemorph's public API."""

from __future__ import annotations

import os


class CodemorphError(Exception):
    """Base class of every error codemorph raises on purpose."""


class ParseError(CodemorphError):
    """A program's source text is not valid Python (for the running interpreter).

    Attributes:
        message: the parser's explanation, e.g. ``"invalid syntax"``.
        line: 1-based line of the error, or ``None`` when the parser gave none.
        column: 1-based column of the error, or ``None``.
        filename: where the source came from (a path, a row id, or ``"<program>"``).
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None,
                 filename: str = "<program>") -> None:
        self.message = message
        self.line = line
        self.column = column
        self.filename = filename
        where = filename
        if line is not None:
            where += f", line {line}"
            if column is not None:
                where += f", column {column}"
        super().__init__(f"{where}: {message}")


class UnknownTransformError(CodemorphError, KeyError):
    """A transform name that is neither built in nor registered by an installed plugin."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown transform"


class NotApplicable(CodemorphError):
    """Raised inside :meth:`Transform.rewrite` when a precondition cannot be established.

    :meth:`Transform.apply` turns it into ``TransformResult(applied=False, reason=...)``;
    it never escapes ``apply``.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class InputError(CodemorphError):
    """An input row or argument literal is malformed (bad JSON, missing field, bad literal)."""


class OutputWriteError(InputError):
    """An output file could not be written: a full disk, a quota, an I/O error.

    Attributes:
        path: the file (:class:`pathlib.Path`) whose write, flush or close failed.
        error: the :class:`OSError` raised (its ``errno`` says why, e.g. ``errno.ENOSPC``).

    The message is ``cannot write <path>: <strerror>``; what was written before (rows and
    the checkpoint of their row groups) is left as it is.
    """

    def __init__(self, path: "os.PathLike[str] | str", error: OSError) -> None:
        from pathlib import Path

        self.path = Path(path)
        self.error = error
        super().__init__(f"cannot write {self.path}: {error.strerror or error}")

    @property
    def out_of_space(self) -> bool:
        """The device or the user's quota is full (``ENOSPC``, ``EDQUOT``)."""
        import errno

        return self.error.errno in (errno.ENOSPC, errno.EDQUOT)


# -- who interrupted: the user, or a plugin raising KeyboardInterrupt ------------------------------
#: whether this process knows when its user interrupts it (:func:`track_interruptions`)
_interruptions_tracked = False
#: whether the user interrupted this process (:func:`note_user_interrupt`)
_user_interrupted = False


def track_interruptions() -> None:
    """Declare that this process records its user's interruptions: the command line's
    signal handler (:func:`codemorph.cli.handle_interruptions`) calls
    :func:`note_user_interrupt` before it raises ``KeyboardInterrupt``, and a worker process
    of :func:`codemorph.jobs.executors.map_rows`, which ignores ``SIGINT``, is never
    interrupted by its user.  From then on a ``KeyboardInterrupt`` raised while the user did
    not interrupt is a plugin's, and :func:`interrupts_run` says it costs one result."""
    global _interruptions_tracked
    _interruptions_tracked = True


def note_user_interrupt() -> None:
    """Record that the user interrupted this process (Ctrl-C, ``SIGTERM``); called by the
    signal handler just before it raises ``KeyboardInterrupt``."""
    global _user_interrupted
    _user_interrupted = True


def interrupts_run(exc: BaseException) -> bool:
    """Whether ``exc``, caught around a transform's or a row's work, must propagate: a
    ``KeyboardInterrupt`` when the user interrupted this process, or when this process does
    not track its interruptions (:func:`track_interruptions`; a program using codemorph as a
    library, where Python's default ``SIGINT`` handler raises it).  Every other
    ``BaseException`` a plugin raises (``GeneratorExit``, ``SystemExit``, a class of its own,
    a ``KeyboardInterrupt`` nobody's Ctrl-C caused) is that plugin's failure and costs one
    result, never the run: ``False``."""
    if isinstance(exc, KeyboardInterrupt):
        return _user_interrupted or not _interruptions_tracked
    return False
