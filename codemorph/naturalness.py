"""Naturalness of Python source: cross-entropy under a token n-gram model of Python.

A variant that no person would write is *surprising* to a language model of code.  Following
Hindle et al., "On the naturalness of software" (ICSE 2012), surprise is measured as the
cross-entropy, in bits per token, of the program's token stream under an n-gram model trained
on a large body of ordinary code; the *naturalness delta* of a variant is its cross-entropy
minus its original's.  A positive delta means the variant reads as less natural.

The model, exactly:

* **Tokens.**  The stdlib :mod:`tokenize` module lexes the source (the code is never parsed
  into an AST nor executed).  Each token becomes one symbol (:func:`abstract_tokens`):

  - hard keywords (:data:`keyword.kwlist`: ``def``, ``for``, ``in``, ``True``, ``None`` ...)
    are kept verbatim;
  - names of public builtins of the running Python (``len``, ``range``, ``iter``, ``next``,
    ``object``, ``type``, ``str``, ``print`` ..., i.e. ``dir(builtins)`` without names that
    start with ``_`` and without the ones :mod:`site` adds: ``exit``, ``quit``, ``help``,
    ``copyright``, ``credits``, ``license``) are kept verbatim, wherever they occur (the lexer cannot tell a
    shadowing local from the builtin);
  - every other name -- locals, parameters, attributes, module names, dunder names, soft
    keywords such as ``match`` -- becomes ``<id>``;
  - every string literal (docstrings, byte strings and whole f-strings included) becomes
    ``<str>``;
  - a decimal or prefixed integer literal whose value is 0 to 10 is kept as its decimal
    value (``0``, ``1``, ``0x1`` -> ``1``); any other number (larger ints, floats, complex)
    becomes ``<num>``;
  - operators and delimiters are kept verbatim (``(``, ``:=``, ``+=`` ...);
  - ``NEWLINE`` -> ``<newline>``, ``INDENT`` -> ``<indent>``, ``DEDENT`` -> ``<dedent>``,
    ``ENDMARKER`` -> ``</s>``; comments and non-logical newlines (``NL``) are dropped;
  - a symbol never seen in training is scored as ``<unk>``.

  Each file is one sequence, padded on the left with ``order - 1`` ``<s>`` symbols; every
  symbol after the padding, ``</s>`` included, is predicted.

* **n and smoothing.**  ``order = 4`` by default, with interpolated modified Kneser-Ney
  smoothing (Chen and Goodman, "An empirical study of smoothing techniques for language
  modeling", Harvard TR-10-98, 1998, section 3.5): three absolute discounts per order
  (``D1, D2, D3+``) estimated from the counts of counts as ``Y = n1 / (n1 + 2 n2)``,
  ``Dk = k - (k + 1) Y n(k+1) / nk``; lower orders use continuation counts (the number of
  distinct left contexts); the unigram level is interpolated with the uniform distribution
  over the vocabulary (``<unk>`` included), so every probability is positive.

* **Training corpus.**  Every ``*.py`` file under ``sysconfig.get_paths()["stdlib"]`` of the
  running Python, in sorted path order, except those under ``site-packages``/``dist-packages``
  and test code: any directory named ``test``, ``tests``, ``idle_test`` or starting with
  ``test_``, and files named ``test_*.py`` (:func:`stdlib_files`).  A file that fails to
  lex is skipped (counted in :attr:`NgramModel.skipped`).  On CPython 3.11.7 this is 734 files,
  1,488,106 predicted symbols.

* **Cache.**  Training takes a few seconds (see README "Naturalness"); the trained tables are
  written once to ``<cache dir>/naturalness/`` in a flat binary format (a JSON header and
  integer/float arrays; no pickle) and read back afterwards.  The cache dir is
  ``$CODEMORPH_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/codemorph`` or
  ``~/.cache/codemorph`` (``~/Library/Caches/codemorph`` on macOS, ``%LOCALAPPDATA%\\codemorph``
  on Windows).  The file name holds the Python implementation and version, the order, the
  tokenisation version and a SHA-256 of the training files' paths and bytes, so another
  Python, another model or a changed standard library trains a new model.  Nothing is
  downloaded.  When the cache cannot be written the model is kept in memory only.

Public API: :func:`cross_entropy`, :func:`naturalness_delta`, :func:`default_model`,
:class:`NgramModel`, :func:`abstract_tokens`, :func:`stdlib_files`, :func:`prepare_default_model`.
"""

from __future__ import annotations

import array
import ast
import builtins
import functools
import hashlib
import io
import json
import keyword
import math
import os
import platform
import sys
import sysconfig
import tempfile
import tokenize
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from codemorph.errors import ParseError

__all__ = [
    "DEFAULT_ORDER",
    "NgramModel",
    "abstract_tokens",
    "cache_dir",
    "cross_entropy",
    "cached_model",
    "default_model",
    "naturalness_delta",
    "prepare_default_model",
    "stdlib_files",
]

#: n of the default model (a 4-gram model, as in issue 16)
DEFAULT_ORDER = 4
#: bumped whenever :func:`abstract_tokens` or the model's tables change meaning; part of the
#: cache key
TOKENS_VERSION = "t2"
_FORMAT_MAGIC = b"CMNGRAM1"

ID, STR, NUM = "<id>", "<str>", "<num>"
NEWLINE, INDENT, DEDENT, END, START, UNK = "<newline>", "<indent>", "<dedent>", "</s>", "<s>", "<unk>"

_KEYWORDS = frozenset(keyword.kwlist)
#: the names :mod:`site` adds to builtins (absent under ``python -S``): not kept, so the
#: vocabulary does not depend on how the interpreter was started
_SITE_BUILTINS = frozenset({"copyright", "credits", "license", "exit", "quit", "help"})
_BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_")) - _SITE_BUILTINS
#: kept integer literals: values 0..10
_SMALL_INT_MAX = 10

_STRING_PARTS = {getattr(tokenize, n) for n in ("FSTRING_MIDDLE", "TSTRING_MIDDLE") if hasattr(tokenize, n)}
_STRING_STARTS = {getattr(tokenize, n) for n in ("FSTRING_START", "TSTRING_START") if hasattr(tokenize, n)}
_STRING_ENDS = {getattr(tokenize, n) for n in ("FSTRING_END", "TSTRING_END") if hasattr(tokenize, n)}

_TEST_DIRS = frozenset({"test", "tests", "idle_test"})
_THIRD_PARTY_DIRS = frozenset({"site-packages", "dist-packages"})


# ---------------------------------------------------------------------------------------
# tokens


def _number_symbol(text: str) -> str:
    try:
        value = ast.literal_eval(text)  # a NUMBER token is a literal: never runs code
    except (ValueError, SyntaxError):
        return NUM
    if type(value) is int and 0 <= value <= _SMALL_INT_MAX:
        return str(value)
    return NUM


def abstract_tokens(source: str, filename: str = "<program>") -> list[str]:
    """The abstracted symbol stream of ``source`` (see the module docstring for the rules).

    Args:
        source: Python source text (``str``; a file's bytes must be decoded first).
        filename: named in the error, e.g. a path or a row id.

    Returns:
        one symbol per kept token, ending with ``"</s>"``; no ``<s>`` padding.

    Raises:
        ParseError: the source cannot be lexed (unterminated string or bracket,
            inconsistent dedent).  Only the lexer runs, so code that lexes but does not
            parse is still scored.
    """
    out: list[str] = []
    depth = 0  # nesting of f-/t-strings (Python 3.12+ lexes them into parts)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            kind = tok.type
            if kind in _STRING_STARTS:
                depth += 1
                continue
            if kind in _STRING_ENDS:
                depth -= 1
                if depth == 0:
                    out.append(STR)
                continue
            if depth:
                continue
            if kind == tokenize.NAME:
                s = tok.string
                out.append(s if s in _KEYWORDS or s in _BUILTINS else ID)
            elif kind == tokenize.STRING or kind in _STRING_PARTS:
                out.append(STR)
            elif kind == tokenize.NUMBER:
                out.append(_number_symbol(tok.string))
            elif kind == tokenize.OP:
                out.append(tok.string)
            elif kind == tokenize.NEWLINE:
                out.append(NEWLINE)
            elif kind == tokenize.INDENT:
                out.append(INDENT)
            elif kind == tokenize.DEDENT:
                out.append(DEDENT)
            elif kind == tokenize.ENDMARKER:
                out.append(END)
            elif kind == tokenize.ERRORTOKEN:
                if tok.string.strip():
                    out.append(UNK)
            # COMMENT, NL, ENCODING, TYPE_COMMENT...: dropped
    except tokenize.TokenError as exc:
        msg, (line, col) = exc.args[0], exc.args[1]
        raise ParseError(str(msg), line, col + 1, filename) from None
    except SyntaxError as exc:  # IndentationError from the lexer; SyntaxError on 3.12+
        raise ParseError(exc.msg or "invalid syntax", exc.lineno, exc.offset, filename) from None
    return out


# ---------------------------------------------------------------------------------------
# training corpus and cache


def stdlib_files(stdlib: str | os.PathLike | None = None) -> list[Path]:
    """The training files: ``*.py`` under the standard library, without tests or third-party
    packages, in sorted order.

    Args:
        stdlib: the standard library's directory; default ``sysconfig.get_paths()["stdlib"]``.

    Returns:
        absolute paths (sorted by their path relative to ``stdlib``).
    """
    root = Path(stdlib if stdlib is not None else sysconfig.get_paths()["stdlib"])
    return [root / rel for rel in _stdlib_relative(str(root))]


def _stdlib_relative(root: str) -> list[str]:
    """The training files' paths relative to ``root`` (``/``-separated, sorted): the
    entries ``root.rglob("*.py")`` lists, walked by ``os.scandir`` without descending into
    the test and third-party directories whose files are left out anyway (as ``rglob``:
    directories that are symbolic links are not entered, unreadable ones are skipped)."""
    out: list[str] = []

    def walk(path: str, rel: str) -> None:
        try:
            with os.scandir(path) as it:
                entries = list(it)
        except PermissionError:
            return
        for entry in entries:
            name = entry.name
            if name.endswith(".py") and not name.startswith("test_"):
                out.append(rel + name)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir and not (name in _TEST_DIRS or name.startswith("test_") or name in _THIRD_PARTY_DIRS):
                walk(entry.path, rel + name + "/")

    walk(root, "")
    return sorted(out)


def _resolved(paths: Sequence[Path]) -> tuple[Path, ...]:
    """``tuple(p.resolve() for p in paths)`` for :func:`stdlib_files`' paths, resolving the
    common root once: below it only a path through a symbolic link needs its own resolution
    (the directories walked are no links; a file may be)."""
    if not paths:
        return ()
    root = Path(sysconfig.get_paths()["stdlib"])
    real_root = root.resolve()
    out = []
    for p in paths:
        try:
            rel = p.relative_to(root)
        except ValueError:
            out.append(p.resolve())
            continue
        out.append(p.resolve() if p.is_symlink() else real_root / rel)
    return tuple(out)


def cache_dir() -> Path:
    """codemorph's user cache directory (not created here): ``$CODEMORPH_CACHE_DIR``, else the
    platform's user cache dir + ``codemorph``."""
    env = os.environ.get("CODEMORPH_CACHE_DIR")
    if env:
        return Path(env)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "codemorph"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "codemorph"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "codemorph"


def _read_source(path: Path) -> str:
    with tokenize.open(path) as fh:  # honours the coding cookie
        return fh.read()


def _corpus_digest(files: Sequence[Path]) -> str:
    h = hashlib.sha256()
    for path in files:
        h.update(os.fsencode(path) + b"\0")
        data = path.read_bytes()
        h.update(hashlib.sha256(data).digest())
    return h.hexdigest()


def _python_tag() -> str:
    return f"{sys.implementation.name}{platform.python_version()}"


# ---------------------------------------------------------------------------------------
# the model


def _discounts(values: Iterable[int]) -> tuple[float, float, float]:
    """Modified Kneser-Ney discounts ``(D1, D2, D3+)`` from counts of counts (Chen and
    Goodman 1998, eq. 26); falls back to a single ``Y`` (or 0.5) when the corpus is too
    small for the estimate."""
    n = Counter(v for v in values if v <= 4)
    n1, n2, n3, n4 = n[1], n[2], n[3], n[4]
    if n1 == 0 or n1 + 2 * n2 == 0:
        return (0.5, 0.5, 0.5)
    y = n1 / (n1 + 2 * n2)
    if n2 == 0 or n3 == 0 or n4 == 0:
        d = min(max(y, 0.05), 1.0)
        return (d, d, d)
    d1 = 1 - 2 * y * n2 / n1
    d2 = 2 - 3 * y * n3 / n2
    d3 = 3 - 4 * y * n4 / n3
    return (min(max(d1, 0.05), 1.0), min(max(d2, 0.05), 2.0), min(max(d3, 0.05), 3.0))


class NgramModel:
    """A token n-gram model of Python with interpolated modified Kneser-Ney smoothing
    (Chen and Goodman 1998) over :func:`abstract_tokens` symbols.

    Build one with :meth:`train` (or :func:`default_model` for the cached standard-library
    model); score with :meth:`cross_entropy` / :meth:`surprisals`.

    Attributes:
        order: n (``int`` >= 1).
        vocabulary: the symbols, index = id; ``vocabulary[0] == "<unk>"``.
        files: number of training files used; ``skipped``: files that failed to lex.
        tokens: number of predicted training symbols.
        discounts: per order 1..n, ``(D1, D2, D3+)``.
        metadata: ``dict`` of the training's description (python, corpus digest, ...).
    """

    def __init__(self, order: int, vocabulary: Sequence[str], numerators: list[dict[int, int]],
                 contexts: list[dict[int, tuple[int, float]]], discounts: list[tuple[float, float, float]],
                 files: int = 0, skipped: int = 0, tokens: int = 0, metadata: dict | None = None) -> None:
        self.order = order
        self.vocabulary = list(vocabulary)
        self._ids = {s: i for i, s in enumerate(self.vocabulary)}
        self._base = len(self.vocabulary)
        self._numerators = numerators  # per order 1..n (index 0 = unigrams)
        self._contexts = contexts  # per order: context key -> (denominator, gamma numerator)
        self.discounts = discounts
        self.files = files
        self.skipped = skipped
        self.tokens = tokens
        self.metadata = dict(metadata or {})

    # -- training ----------------------------------------------------------------------

    @classmethod
    def train(cls, sources: Iterable[str | os.PathLike], order: int = DEFAULT_ORDER,
              metadata: dict | None = None) -> "NgramModel":
        """Count n-grams over ``sources`` and build the smoothed tables.

        Args:
            sources: file paths (``str`` or ``PathLike``) of Python source, read with the
                file's coding cookie; a file that cannot be read or lexed is skipped.
            order: n (>= 1).
            metadata: stored on the model (and in its cache file).

        Returns:
            the trained model.

        Raises:
            ValueError: ``order < 1``, or no file could be lexed.
        """
        if order < 1:
            raise ValueError(f"order must be >= 1, got {order}")
        streams: list[list[str]] = []
        skipped = 0
        for src in sources:
            try:
                streams.append(abstract_tokens(_read_source(Path(src)), str(src)))
            except (ParseError, OSError, UnicodeDecodeError, SyntaxError):
                skipped += 1
        if not streams:
            raise ValueError("no training file could be lexed")
        symbols = sorted({s for st in streams for s in st} - {UNK})
        vocabulary = [UNK, START] + symbols
        ids = {s: i for i, s in enumerate(vocabulary)}
        base = len(vocabulary)
        if base ** order >= 2 ** 63:
            raise ValueError(f"vocabulary of {base} symbols too large for order {order}")

        top: Counter[int] = Counter()
        pad = [ids[START]] * (order - 1)
        tokens = 0
        for st in streams:
            seq = pad + [ids[s] for s in st]
            tokens += len(st)
            keys = seq[order - 1:]
            for k in range(order - 2, -1, -1):  # key = ((w1*B + w2)*B + ...) + wn
                shift = base ** (order - 1 - k)
                keys = [a * shift + v for a, v in zip(seq[k:], keys)]
            top.update(keys)

        numerators: list[dict[int, int]] = [dict() for _ in range(order)]
        numerators[order - 1] = dict(top)
        for n in range(order - 1, 0, -1):  # continuation counts of order n from order n+1
            mod = base ** n
            lower: Counter[int] = Counter(k % mod for k in numerators[n])
            numerators[n - 1] = dict(lower)

        contexts: list[dict[int, tuple[int, float]]] = []
        discounts: list[tuple[float, float, float]] = []
        for n in range(order):
            d = _discounts(numerators[n].values())
            discounts.append(d)
            ctx: dict[int, list] = {}
            for key, c in numerators[n].items():
                h = key // base
                entry = ctx.get(h)
                if entry is None:
                    entry = ctx[h] = [0, 0.0]
                entry[0] += c
                entry[1] += d[0] if c == 1 else d[1] if c == 2 else d[2]
            contexts.append({h: (v[0], v[1]) for h, v in ctx.items()})
        return cls(order, vocabulary, numerators, contexts, discounts,
                   files=len(streams), skipped=skipped, tokens=tokens, metadata=metadata)

    # -- scoring -----------------------------------------------------------------------

    def surprisals(self, source: str, filename: str = "<program>") -> list[tuple[str, float]]:
        """``(symbol, bits)`` for every predicted symbol of ``source``: ``-log2 P(symbol |
        previous n-1 symbols)``.

        Raises:
            ParseError: the source cannot be lexed.
        """
        symbols = abstract_tokens(source, filename)
        ids = self._ids
        seq = [ids[START]] * (self.order - 1) + [ids.get(s, 0) for s in symbols]
        return [(symbols[pos - self.order + 1], -math.log2(self._probability(seq, pos)))
                for pos in range(self.order - 1, len(seq))]

    def probability(self, symbol: str, history: Sequence[str] = ()) -> float:
        """``P(symbol | history)``: the smoothed probability of one abstracted symbol after
        the symbols ``history`` (only the last ``order - 1`` count; a shorter history is
        padded with ``<s>`` as at the start of a file; unknown symbols count as ``<unk>``).
        Summed over :attr:`vocabulary` it is 1 for every history.

        Args:
            symbol: a symbol such as ``"for"``, ``"<id>"``, ``"("`` (see :func:`abstract_tokens`).
            history: the preceding symbols, oldest first.
        """
        ids = self._ids
        hist = [ids.get(s, 0) for s in history][-(self.order - 1):] if self.order > 1 else []
        seq = [ids[START]] * (self.order - 1 - len(hist)) + hist + [ids.get(symbol, 0)]
        return self._probability(seq, len(seq) - 1)

    def _probability(self, seq: list[int], pos: int) -> float:
        # interpolated modified Kneser-Ney, lowest order first (Chen & Goodman 1998, eq. 17)
        base = self._base
        w = seq[pos]
        p = 1.0 / base  # the uniform distribution below the unigrams
        h = 0  # context key of the current order (unigrams: the empty context, key 0)
        nums, ctxs, discs = self._numerators, self._contexts, self.discounts
        for n in range(self.order):
            if n:
                h = h + seq[pos - n] * base ** (n - 1)
            entry = ctxs[n].get(h)
            if entry is None:
                break  # unseen context: every longer one is unseen too
            den, gamma = entry
            c = nums[n].get(h * base + w, 0)
            if c:
                d = discs[n]
                c = c - (d[0] if c == 1 else d[1] if c == 2 else d[2])
            p = (c + gamma * p) / den
        return p

    def cross_entropy(self, source: str, filename: str = "<program>") -> float:
        """Mean surprisal of ``source``'s symbols, in bits per token.

        Raises:
            ParseError: the source cannot be lexed.
        """
        s = self.surprisals(source, filename)
        return sum(b for _, b in s) / len(s)

    # -- persistence -------------------------------------------------------------------

    def save(self, path: str | os.PathLike) -> None:
        """Write the model to ``path`` (atomically: a temporary file, then a rename)."""
        path = Path(path)
        header = {
            "order": self.order, "vocabulary": self.vocabulary, "discounts": self.discounts,
            "files": self.files, "skipped": self.skipped, "tokens": self.tokens,
            "metadata": self.metadata, "byteorder": sys.byteorder,
            "sizes": [len(d) for d in self._numerators], "ctx_sizes": [len(d) for d in self._contexts],
        }
        blob = json.dumps(header, sort_keys=True).encode()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(_FORMAT_MAGIC + len(blob).to_bytes(8, "little") + blob)
                for nums, ctx in zip(self._numerators, self._contexts):
                    array.array("q", nums.keys()).tofile(fh)
                    array.array("q", nums.values()).tofile(fh)
                    array.array("q", ctx.keys()).tofile(fh)
                    array.array("q", (v[0] for v in ctx.values())).tofile(fh)
                    array.array("d", (v[1] for v in ctx.values())).tofile(fh)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    @classmethod
    def load(cls, path: str | os.PathLike) -> "NgramModel":
        """Read a model written by :meth:`save`.

        Raises:
            ValueError: not a model file, truncated or with trailing bytes, or written on a
                machine of the other byte order.
            OSError: the file cannot be read.
        """
        with open(path, "rb") as fh:
            total = os.fstat(fh.fileno()).st_size
            if fh.read(len(_FORMAT_MAGIC)) != _FORMAT_MAGIC:
                raise ValueError(f"{path}: not a codemorph n-gram model")
            size = int.from_bytes(fh.read(8), "little")
            if size > total:
                raise ValueError(f"{path}: truncated model file")
            try:
                header = json.loads(fh.read(size))
                sizes, ctx_sizes = header["sizes"], header["ctx_sizes"]
                byteorder = header["byteorder"]
            except (ValueError, KeyError, TypeError):
                raise ValueError(f"{path}: unreadable model header") from None
            if byteorder != sys.byteorder:
                raise ValueError(f"{path}: written with byte order {byteorder}")
            if 8 * (2 * sum(sizes) + 3 * sum(ctx_sizes)) != total - fh.tell():
                raise ValueError(f"{path}: truncated model file or trailing bytes")

            def read(code: str, n: int) -> list:
                a = array.array(code)
                a.fromfile(fh, n)
                return a.tolist()

            numerators, contexts = [], []
            for n, m in zip(sizes, ctx_sizes):
                numerators.append(dict(zip(read("q", n), read("q", n))))
                keys, dens, gammas = read("q", m), read("q", m), read("d", m)
                contexts.append(dict(zip(keys, zip(dens, gammas))))
        return cls(header["order"], header["vocabulary"], numerators, contexts,
                   [tuple(d) for d in header["discounts"]], header["files"], header["skipped"],
                   header["tokens"], header["metadata"])


# ---------------------------------------------------------------------------------------
# the default (standard-library) model


def model_cache_path(files: Sequence[Path], order: int = DEFAULT_ORDER, directory: str | os.PathLike | None = None) -> Path:
    """Where the model trained on ``files`` with ``order`` is cached (the key: Python
    implementation and version, order, tokenisation version, SHA-256 of the files)."""
    base = Path(directory) if directory is not None else cache_dir()
    digest = _corpus_digest(files)[:16]
    return base / "naturalness" / f"ngram-{_python_tag()}-n{order}-{TOKENS_VERSION}-{digest}.bin"


@functools.lru_cache(maxsize=1)
def _default_files() -> tuple[Path, ...]:
    return _resolved(stdlib_files())


@functools.lru_cache(maxsize=8)
def _cached_model(files: tuple[Path, ...], order: int, directory: str | None, use_cache: bool,
                  corpus: str) -> NgramModel:
    path = model_cache_path(files, order, directory)
    try:
        cached = use_cache and path.exists()
    except OSError:  # a cache folder this user may not read: train, keep in memory
        cached = False
    if cached:
        try:
            return NgramModel.load(path)
        except (ValueError, OSError, KeyError, json.JSONDecodeError):
            pass  # unreadable cache: retrain and overwrite
    model = NgramModel.train(files, order, metadata={
        "python": _python_tag(), "corpus": corpus,
        "corpus_sha256": _corpus_digest(files), "tokens_version": TOKENS_VERSION,
        "smoothing": "interpolated modified Kneser-Ney (Chen & Goodman 1998)",
    })
    if use_cache:
        try:
            model.save(path)
        except OSError:
            pass  # read-only cache dir: the model lives in memory for this process
    return model


def default_model(order: int = DEFAULT_ORDER, files: Sequence[str | os.PathLike] | None = None,
                  cache: str | os.PathLike | None = None, use_cache: bool = True) -> NgramModel:
    """The naturalness model, trained once and cached on disk (and in memory per process).

    Args:
        order: n.
        files: training files; default :func:`stdlib_files` (the running Python's standard
            library).  Tests pass a handful of files to stay fast.
        cache: the cache directory; default :func:`cache_dir`.
        use_cache: read and write the disk cache (``False``: always train, write nothing).

    Returns:
        the model.

    Raises:
        ValueError: no training file could be lexed.
    """
    if files is None:
        paths, corpus = _default_files(), "stdlib"
    else:
        paths, corpus = tuple(Path(f).resolve() for f in files), "custom"
    return _cached_model(paths, order, str(cache) if cache is not None else None, use_cache, corpus)


def prepare_default_model() -> Path:
    """Make sure the default model (:func:`default_model` with its defaults) is in the disk
    cache, training and writing it when it is not there, and return the cache file's path.

    A job that starts several worker processes calls this once first, so the workers read
    the cached tables (about 1 s each) instead of each training its own copy.  When the cache
    cannot be written the model is trained here and kept in this process only."""
    return _prepare(str(cache_dir()))


@functools.lru_cache(maxsize=4)
def _prepare(directory: str) -> Path:
    path = model_cache_path(_default_files(), directory=directory)
    try:
        cached = path.exists()
    except OSError:  # a cache folder this user may not read (another user's home)
        cached = False
    if not cached:
        default_model(cache=directory)
    return path


@functools.lru_cache(maxsize=4)
def _load(path: str) -> NgramModel:
    return NgramModel.load(path)


def cached_model(path: str | os.PathLike | None = None) -> NgramModel:
    """The model in the cache file ``path`` (as :func:`prepare_default_model` returns it),
    read once per process; :func:`default_model` when ``path`` is ``None`` or cannot be read
    (another machine, a removed cache).  Reading a known file skips listing and hashing the
    standard library (about 0.5 CPU seconds), so worker processes start faster."""
    if path is not None:
        try:
            return _load(str(path))
        except (ValueError, OSError, KeyError, json.JSONDecodeError):
            pass
    return default_model()


def cross_entropy(source: str, model: NgramModel | None = None) -> float:
    """Cross-entropy of ``source`` in bits per token under ``model`` (default:
    :func:`default_model`).

    Raises:
        ParseError: the source cannot be lexed.
    """
    return (model or default_model()).cross_entropy(source)


def naturalness_delta(original: str, variant: str, model: NgramModel | None = None) -> float:
    """How much less natural ``variant`` is than ``original``: ``cross_entropy(variant) -
    cross_entropy(original)``, in bits per token (positive = more surprising).

    Raises:
        ParseError: either source cannot be lexed.
    """
    model = model or default_model()
    return model.cross_entropy(variant) - model.cross_entropy(original)
