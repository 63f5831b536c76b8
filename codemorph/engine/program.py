"""The program model: source text plus the name of its entry point."""

from __future__ import annotations

import unicodedata

import warnings

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from codemorph.errors import ParseError
from codemorph.engine.visiting import install as _install_visiting

_install_visiting()  # read-only libcst traversals without rebuilding the tree (performance only)

if TYPE_CHECKING:
    from libcst.metadata import MetadataWrapper

__all__ = ["Program", "parse_source", "check_compiles"]


def parse_source(source: str, filename: str = "<program>") -> cst.Module:
    """Parse ``source`` into a libcst :class:`~libcst.Module`.

    The text is first compiled by the running interpreter (so that every error the
    interpreter would raise at import time, such as ``return`` outside a function or
    Python 2 ``print`` statements, is caught), then parsed by libcst.

    Raises:
        ParseError: with the 1-based line and column of the first error.
    """
    check_compiles(source, filename)
    return _parse_cst(source, filename)


def check_compiles(source: str, filename: str = "<program>") -> None:
    """Compile ``source`` with the running interpreter (parse, symbol table, code
    generation), as :func:`parse_source` does before parsing it with libcst.

    Raises:
        ParseError: with the 1-based line and column of the first error.
    """
    if not isinstance(source, str):
        raise ParseError(f"expected source text (str), got {type(source).__name__}", filename=filename)
    try:
        # a full compile (parse, symbol table, code generation) reports every error an AST-only
        # parse would, and the symbol-table ones too (nonlocal, global)
        # warnings about the user's program (e.g. `"is" with a literal`) are not codemorph's
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise ParseError(exc.msg or "invalid syntax", exc.lineno, exc.offset, filename) from None
    except (ValueError, MemoryError, RecursionError) as exc:  # NUL bytes, absurd nesting
        raise ParseError(str(exc) or type(exc).__name__, filename=filename) from None


def _parse_cst(source: str, filename: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise ParseError(exc.message, exc.raw_line, exc.raw_column + 1, filename) from None
    except RecursionError:
        raise ParseError("program nests too deeply to parse", filename=filename) from None
    except Exception as exc:  # e.g. libcst's CSTValidationError on `return(a if a else 1)`
        raise ParseError(f"libcst cannot represent this program: {type(exc).__name__}: {exc}",
                         filename=filename) from None


@dataclass(frozen=True)
class Program:
    """A Python program under study.

    Args:
        source: the module's full source text (str).
        entry_point: name of the function a harness calls, ``"f"`` for CRUXEval.
        filename: used in error messages only (a path or a row id).
        script: the program runs as a script (``python main.py < input``: a ``stdin`` row),
            so nothing outside it reads its module namespace after it ran and module-level
            names are its own, as a function's locals are; ``False`` (default) when a
            harness calls into it (``args`` and ``call`` rows), which may reach any
            module-level name.  Transforms read it as :attr:`RewriteContext.script`.
        read_only: names of top-level ``class``/``def`` statements no transform may change
            (a frozenset of str; empty by default): the harness a ``call`` row's input runs
            (``Test`` in ``Test().test()``: ClassEval), which is not the program under test.
            :meth:`Transform.apply <codemorph.engine.transform.Transform.apply>` keeps them
            as they are in every rewrite; rewrites keep the set.

    Raises:
        ParseError: when ``source`` is not valid Python; carries line and column.

    The libcst tree is parsed once, on construction, and is immutable; transforms
    return new :class:`Program` objects rather than changing this one.
    """

    source: str
    entry_point: str = "f"
    filename: str = field(default="<program>", compare=False)
    script: bool = False
    read_only: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "read_only", frozenset(self.read_only))
        # parse eagerly so that a bad program fails where it is created
        object.__setattr__(self, "_module", parse_source(self.source, self.filename))

    @classmethod
    def compiled(cls, source: str, entry_point: str = "f", filename: str = "<program>",
                 script: bool = False, read_only: frozenset[str] = frozenset()) -> "Program":
        """A program whose ``source`` is only compiled now (:func:`check_compiles`); its
        libcst tree is parsed on first use of :attr:`module`.  For programs a rewrite
        produced (:meth:`Transform.apply <codemorph.engine.transform.Transform.apply>`):
        most are executed, compared and written without their tree ever being read, and
        parsing them again would double the host's parsing.

        Raises:
            ParseError: ``source`` does not compile; a program the interpreter compiles but
                libcst cannot parse raises it from :attr:`module` instead.
        """
        check_compiles(source, filename)
        program = cls.__new__(cls)
        for name, value in (("source", source), ("entry_point", entry_point), ("filename", filename),
                            ("script", script), ("read_only", frozenset(read_only)), ("_module", None)):
            object.__setattr__(program, name, value)
        return program

    @property
    def module(self) -> cst.Module:
        """The parsed libcst module (immutable).

        Raises:
            ParseError: only for a program made by :meth:`compiled` whose text libcst
                cannot parse (a program made by the constructor was parsed there)."""
        module = self._module  # type: ignore[attr-defined]
        if module is None:
            module = _parse_cst(self.source, self.filename)
            object.__setattr__(self, "_module", module)
        return module

    @cached_property
    def metadata_wrapper(self) -> "MetadataWrapper":
        """A :class:`~libcst.metadata.MetadataWrapper` over :attr:`module` that keeps node
        identity (``unsafe_skip_copy``), created on first use and kept: metadata resolved
        once (``ScopeProvider``, ``PositionProvider``...) serves every transform applied to
        this program.  The tree is immutable, so the metadata never goes stale."""
        from libcst.metadata import MetadataWrapper

        return MetadataWrapper(self.module, unsafe_skip_copy=True)

    @cached_property
    def functions(self) -> tuple[str, ...]:
        """Names of the top-level ``def`` statements, in source order."""
        return tuple(s.name.value for s in self.module.body if isinstance(s, cst.FunctionDef))

    def has_entry_point(self) -> bool:
        """Whether a top-level function named :attr:`entry_point` is defined (by Python's
        rules: a ``def`` spelled ``ｆ`` defines ``f``, identifiers being read in NFKC form,
        PEP 3131)."""
        names = self.functions
        return self.entry_point in names or any(unicodedata.normalize("NFKC", n) == self.entry_point for n in names
                                                if not n.isascii())

    def with_source(self, source: str, entry_point: str | None = None) -> "Program":
        """A new program with other source text (and optionally another entry point)."""
        return Program(source, entry_point or self.entry_point, self.filename, self.script, self.read_only)
