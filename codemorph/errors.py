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
