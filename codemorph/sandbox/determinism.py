"""Static test for program outcomes that a second run in the same process cannot reveal.

A benchmark row is ground truth: its ``output`` must be what the program returns on its
``input`` on any machine, at any time.  codemorph runs a program several times before
trusting an outcome (twice at different heap states, under other ``PYTHONHASHSEED``
values), which reveals memory addresses (``repr(object())``, identity-ordered sets of
plain instances, ``hash`` of such objects) and string-hash order.  It cannot reveal what a
run a millisecond later, in the same forked sandbox child, still sees the same: the clock
(the minute changes later), unseeded random numbers (the child inherits one generator
state, and a 50/50 draw agrees with itself half the time), the process id, the
environment, the file system, the interpreter version.  :func:`nondeterminism_source`
flags these on the syntax tree, so such rows are rejected before anything is written.
"""

from __future__ import annotations

import ast
import re
import sys
import unicodedata
from typing import Any, Iterable, Sequence

import libcst as cst
from libcst.metadata import (BuiltinAssignment, ImportAssignment, MetadataWrapper, ParentNodeProvider,
                             ScopeProvider)

__all__ = ["nondeterminism_source", "process_change", "PROCESS_CHANGES", "REBINDS_BUILTIN", "reached_part", "SQL_NONDETERMINISM", "FLAGGED_MODULES", "PURE_MEMBERS", "FLAGGED_BUILTINS", "HARNESS_GLOBALS",
           "HARNESS_ATTRIBUTES", "NON_STDLIB", "PURE_MODULES", "UNKNOWN_MODULE"]

#: modules whose import alone is flagged (top-level package name -> what it reads)
FLAGGED_MODULES: dict[str, str] = {
    "time": "reads the clock",
    "random": "uses random numbers",
    "secrets": "uses random numbers",
    "uuid": "uses random numbers or the host's address",
    "threading": "runs threads (scheduling order)",
    "_thread": "runs threads (scheduling order)",
    "multiprocessing": "runs processes (scheduling order)",
    "concurrent": "runs threads or processes (scheduling order)",
    "asyncio": "runs an event loop (clock, scheduling order)",
    "subprocess": "runs processes",
    "sched": "reads the clock",
    "gc": "reads the garbage collector's state",
    "tracemalloc": "reads the memory allocator's state",
    "tempfile": "uses random temporary file names",
    "socket": "uses the network",
    "ssl": "uses the network",
    "select": "waits on the process's file descriptors",
    "selectors": "waits on the process's file descriptors",
    "platform": "reads the platform",
    "resource": "reads the process's resource usage",
    "signal": "uses signals",
    "locale": "reads the locale",
    "getpass": "reads the user",
    "pwd": "reads the user database",
    "grp": "reads the group database",
    "ctypes": "reads raw memory",
    "shutil": "reads or changes the file system",
    "glob": "reads the file system",
    "pathlib": "reads the file system",
    "fileinput": "reads files",
    "inspect": "reads the interpreter's frames and source files",
    "builtins": "reaches the builtins by name (id, hash, open...)",
    "traceback": "reads the harness's frames and file names",
    "linecache": "reads source files by the harness's file names",
    "__main__": "reads the harness's main module",
    "dis": "reads code objects (their file name is the harness's)",
    "sysconfig": "reads the interpreter's installation paths",
    "site": "reads the interpreter's installation and user site paths",
    "pkgutil": "lists the installed modules",
    "timeit": "reads the clock",
    "logging": "writes log records (the clock, process and thread ids, the harness's file names)",
    "zoneinfo": "reads the machine's time zone database",
    "mimetypes": "reads the machine's MIME type files",
    "pdb": "reads the interpreter's frames",
    "bdb": "reads the interpreter's frames",
    "trace": "reads the interpreter's frames and file names",
    "cProfile": "reads the clock",
    "profile": "reads the clock",
    "faulthandler": "reads the interpreter's frames",
    "weakref": "observes when objects die (the garbage collector's timing)",
}

#: standard-library modules (dotted prefixes) known to give the same result on every run,
#: machine and minute: an import of any other module is flagged (an allow-list, since the
#: standard library has many modules that read the clock, files or the machine for their
#: caller: ``logging`` records, ``email.utils.formatdate``, ``http.cookiejar``,
#: ``gzip.compress`` headers, ``codecs.open``, ``filecmp``...).  ``os``, ``sys``,
#: ``datetime`` and ``importlib`` are checked member by member (:data:`PARTLY_FLAGGED`).
PURE_MODULES: frozenset[str] = frozenset({
    "__future__", "abc", "array", "ast", "base64", "binascii", "bisect", "cmath", "collections", "colorsys",
    "contextlib", "copy", "csv", "dataclasses", "decimal", "difflib", "enum", "errno", "fnmatch", "fractions",
    "functools", "graphlib", "hashlib", "heapq", "hmac", "html", "ipaddress", "itertools", "json", "keyword",
    "math", "numbers", "operator", "pprint", "queue", "re", "reprlib", "shlex", "statistics", "string",
    "stringprep", "struct", "textwrap", "types", "typing", "unicodedata", "urllib.parse", "zlib",
    # ClassEval's harness classes subclass unittest.TestCase; its assertions are pure (a test
    # runner's timings are not reached by calling a test method)
    "unittest",
    # files and databases: a program may create, read and write them in its fresh, empty work
    # directory only (the sandbox's guard refuses reading or writing any file outside it and
    # opening the standard streams by descriptor), so what it reads it wrote in the same run;
    # SQL that reads the clock, random numbers or the library's version is flagged
    # (:data:`SQL_NONDETERMINISM`)
    "io", "sqlite3",
    # a pure-Python module (Avatar's codeforces_622_A imports ``cmd.IDENTCHARS``; ``Cmd.cmdloop``
    # reads the standard input, as ``input()`` does)
    "cmd",
})

#: SQL (in a string of a program that imports ``sqlite3``) whose result is not the same on every
#: run and machine: the clock (``CURRENT_TIMESTAMP``, ``'now'``), random numbers, the library's
#: version and build, other database files (``ATTACH``, ``VACUUM INTO``: sqlite opens them itself,
#: without an audit event the guard could check) and pragmas (``database_list`` shows the work
#: directory's path); matched case-insensitively, an over-approximation
SQL_NONDETERMINISM = re.compile(
    r"\b(?:random|randomblob|sqlite_version|sqlite_source_id|sqlite_compileoption_\w+|load_extension)\s*\("
    r"|\bcurrent_(?:timestamp|date|time)\b|\bnow\b|\b(?:attach|vacuum|pragma)\b", re.IGNORECASE)

#: attributes of ``sqlite3`` that describe the machine's SQLite library (flagged in a program
#: that imports ``sqlite3``)
SQLITE_MACHINE = frozenset({"sqlite_version", "sqlite_version_info"})

#: why importing a standard-library module outside :data:`PURE_MODULES` is flagged
UNKNOWN_MODULE = "imports a module that may read the clock, files, the process or the machine"

#: why importing a module outside the standard library is flagged
NON_STDLIB = "imports a module outside the standard library, which another harness may lack or have in another version"

#: modules flagged unless every use is a member in :data:`PURE_MEMBERS` (dotted prefixes)
PARTLY_FLAGGED: dict[str, str] = {
    "os": "uses the process or its environment",  # reads it (getpid, environ) or acts on it (kill, close)
    "sys": "reads the interpreter or its environment",
    "datetime": "reads the clock or the local time zone",
    "importlib": "imports or reloads modules",
}

#: members of :data:`PARTLY_FLAGGED` modules that give the same result on every run and machine
PURE_MEMBERS: frozenset[str] = frozenset({
    "os.path.join", "os.path.split", "os.path.splitext", "os.path.basename", "os.path.dirname",
    "os.path.normpath", "os.path.normcase", "os.path.commonprefix", "os.path.commonpath", "os.path.isabs",
    "os.path.splitdrive", "os.path.sep", "os.sep", "os.linesep", "os.pathsep", "os.curdir", "os.pardir",
    "os.extsep", "os.altsep", "os.name", "os.fspath",
    "sys.maxsize", "sys.maxunicode", "sys.byteorder", "sys.float_info", "sys.int_info", "sys.hash_info",
    "sys.float_repr_style", "sys.getrecursionlimit", "sys.setrecursionlimit", "sys.get_int_max_str_digits",
    "sys.set_int_max_str_digits", "sys.stdout", "sys.stderr", "sys.exit", "sys.intern",
    "sys.getdefaultencoding",
    "datetime.datetime", "datetime.date", "datetime.time", "datetime.timedelta", "datetime.timezone",
    "datetime.tzinfo", "datetime.MINYEAR", "datetime.MAXYEAR",
})

#: members of ``datetime`` classes that read the clock or the local time zone
_DATETIME_CLOCK = frozenset({"now", "today", "utcnow", "fromtimestamp", "astimezone", "timestamp", "ctime"})

#: members that change the process a harness shares with the program (dotted name -> what the
#: program does, ``{}`` standing for the member): named by :func:`process_change`, and first by :func:`nondeterminism_source`
#: (they are flagged anyway, as uses of ``signal``, ``os``, ``sys`` or ``threading``)
PROCESS_CHANGES: dict[str, str] = {
    **{f"signal.{m}": "installs a signal handler or timer ({}), which changes how the harness's process handles "
                      "signals (its timeouts and interruptions)"
       for m in ("signal", "setitimer", "alarm", "set_wakeup_fd", "siginterrupt", "pthread_sigmask")},
    **{f"os.{m}": "changes the working directory ({}), which the harness shares (every later relative file name "
                  "resolves elsewhere)" for m in ("chdir", "fchdir")},
    **{f"{mod}.{m}": "installs a trace or profile function ({}), which replaces the harness's own (a coverage "
                     "tool's, a debugger's, codemorph's type tracer)"
       for mod in ("sys", "threading") for m in ("settrace", "setprofile", "settrace_all_threads",
                                                 "setprofile_all_threads")},
}

#: what a program that assigns or deletes an attribute of ``builtins`` (or ``__builtins__``) does
#: (``{}``: the target, ``builtins.len``)
REBINDS_BUILTIN = ("rebinds a builtin ({}), which changes the interpreter the harness shares with it (the harness's "
                   "own calls of that name, and every program run after it)")

#: modules whose members :data:`PROCESS_CHANGES` names, and ``builtins``
_CHANGING_MODULES = frozenset({"signal", "os", "sys", "threading", "builtins"})

#: builtins flagged when a name resolves to them (name -> reason)
FLAGGED_BUILTINS: dict[str, str] = {
    "id": "reads memory addresses",
    "hash": "hashes values (an object's hash follows its address, a string's varies per process)",
    "input": "reads standard input",
}

#: module-level names a harness sets: flagged when the program reads them as globals (a
#: module-level assignment of its own does not count); ``x.__name__`` is an attribute, not these
HARNESS_GLOBALS: dict[str, str] = {
    "__name__": "reads its module's name, which the harness chooses",
    "__file__": "reads its file name, which the harness chooses",
    "__spec__": "reads its module's import spec, which the harness chooses",
    "__loader__": "reads its module's loader, which the harness chooses",
    "__package__": "reads its module's package, which the harness chooses",
    "__cached__": "reads its module's cache file, which the harness chooses",
    "__doc__": "reads its module's docstring global, which the harness may leave unset",
    "__annotations__": "reads its module's annotations global, which the harness may leave unset",
    "__main__": "reads the harness's main module",
    "globals": "reads its module's globals, which the harness sets (__name__, __file__, __builtins__...)",
}

#: attributes that show the harness's module name, file name or frames (``attribute -> what``)
HARNESS_ATTRIBUTES: dict[str, str] = {
    **{a: "reads a module name, which the harness chooses" for a in ("__module__",)},
    **{a: "reads a code object (its file name is the harness's)" for a in
       ("__code__", "co_filename", "gi_code", "cr_code", "ag_code")},
    "__globals__": "reads a function's globals, which the harness sets (__name__, __file__, __builtins__...)",
    **{a: "reads the interpreter's frames (file names, line numbers and callers of the harness)" for a in
       ("f_code", "f_lineno", "f_back", "f_globals", "f_locals", "f_builtins", "f_trace", "tb_frame",
        "tb_lineno", "tb_next", "gi_frame", "cr_frame", "ag_frame", "_getframe")},
}

#: builtins that, called with no argument at module level, list the module's globals
_GLOBALS_LISTERS = frozenset({"dir", "vars"})

#: builtins that run code or import modules named by their first argument
_DYNAMIC = frozenset({"__import__", "eval", "exec", "compile"})


#: what a ``stdin`` program may read that others may not: it runs as ``__main__`` (so
#: ``__name__`` is ``"__main__"``, as under ``python main.py``) with the row's input as its
#: standard input (``input()``, ``sys.stdin``)
STDIN_READS = ("input", "__name__", "sys.stdin")

#: members of ``sys.stdin`` that reach its file descriptor (``sys.stdin.fileno()``,
#: ``sys.stdin.buffer.raw``): in the sandbox standard input is an in-memory stream and file
#: descriptor 0 holds no input, so a program that reads the descriptor is flagged
_STDIN_DESCRIPTOR = frozenset({"fileno", "raw"})


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _words(node: ast.AST) -> set[str]:
    """Names, attribute names and identifier-like words of string constants in ``node``."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            out.update(_WORD.findall(n.value))
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
    return out


def reached_part(code: str, harness: Sequence[str]) -> str | None:
    """The program ``code`` with the bodies of the functions and methods that the harness
    texts ``harness`` (call expressions such as ``Test().test()``) cannot reach replaced by
    ``pass``, and then module-level imports of modules in :data:`FLAGGED_MODULES` or
    :data:`PARTLY_FLAGGED` that nothing left refers to dropped (importing them has no effect
    of its own); ``None`` when it does not parse.

    Reachable, by name (an over-approximation): a ``def`` is reached when its name is
    spelled -- as a name, an attribute or a word inside a string -- by the harness texts, by
    module-level code (class bodies and decorators included) or by a reached ``def``; every
    dunder method is reached (operators, construction and printing call them).  A ClassEval
    program's ``shuffle`` method that imports ``random`` is unreached when the harness only
    calls ``set_volume``."""
    try:
        tree = ast.parse(code)
        roots = set().union(*(_words(ast.parse(h.strip(), mode="eval")) for h in harness)) if harness else set()
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    defs: list[ast.AST] = []

    class _Outer(ast.NodeVisitor):
        """Module-level code outside every def body: its words are roots."""

        def generic_visit(self, node: ast.AST) -> None:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs.append(node)
                for d in node.decorator_list:
                    roots.update(_words(d))
                for a in [*node.args.defaults, *node.args.kw_defaults]:
                    if a is not None:
                        roots.update(_words(a))
                return
            if isinstance(node, (ast.Name, ast.Attribute, ast.Constant)):
                roots.update(_words(node))
            super().generic_visit(node)

    _Outer().visit(tree)
    reached: set[int] = set()
    known = set(roots)
    changed = True
    while changed:
        changed = False
        for d in defs:
            if id(d) in reached:
                continue
            name = d.name  # type: ignore[attr-defined]
            if name in known or (name.startswith("__") and name.endswith("__")):
                reached.add(id(d))
                known |= _words(d)
                changed = True
    for d in defs:
        if id(d) not in reached:
            d.body = [ast.Pass()]  # type: ignore[attr-defined]
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    body = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)) and not (isinstance(stmt, ast.ImportFrom) and stmt.level):
            mods = [a.name for a in stmt.names] if isinstance(stmt, ast.Import) else [stmt.module or ""]
            bound = [(a.asname or a.name).split(".")[0] for a in stmt.names]
            if all(m.split(".")[0] in FLAGGED_MODULES or m.split(".")[0] in PARTLY_FLAGGED for m in mods) \
                    and "*" not in bound and not set(bound) & used:
                continue
        body.append(stmt)
    tree.body = body
    return ast.unparse(tree)


def nondeterminism_source(code: str, input_kind: str = "args", harness: Sequence[str] | None = None) -> str | None:
    """Why a program's outcome may differ between runs, machines or minutes, or ``None``.

    A conservative (over-approximating) test on the libcst syntax tree, with libcst's
    ``ScopeProvider`` to resolve names: a program flagged may still be deterministic (it may
    import ``time`` and never call it), a program not flagged is one whose remaining
    nondeterminism a second run reveals (see below).  Flagged:

    * importing a module of :data:`FLAGGED_MODULES`: the clock (``time``, ``sched``,
      ``asyncio``), randomness (``random``, ``secrets``, ``uuid``, ``tempfile``; ``random``
      is flagged even when the code seeds it with a constant, since a seed at module level
      is shared between calls in a harness that imports the module once), threads and
      processes, the garbage collector, the network, the platform, the locale, the user,
      the file system, raw memory (``ctypes``), frames (``inspect``, ``traceback``), the
      installation (``sysconfig``, ``site``), log records (``logging``); importing a module
      outside the standard library (``sys.stdlib_module_names``: ``libcst`` imports inside
      codemorph's sandbox because it runs in codemorph's environment, a harness may lack it);
      importing any other standard-library module that is not in :data:`PURE_MODULES` (an
      allow-list: ``email.utils.formatdate``, ``http.cookiejar.time2isoz``, ``codecs.open``,
      ``gzip.compress`` read the clock or files for their caller);
    * reading what the harness that runs the program chooses (:data:`HARNESS_GLOBALS`,
      :data:`HARNESS_ATTRIBUTES`): the global names ``__name__``, ``__file__``,
      ``__spec__``, ``__loader__``, ``__package__``, ``__doc__``, ``__main__``, ``globals()``,
      ``dir()``/``vars()`` without arguments outside a function, the attributes
      ``__module__``, ``__code__``/``co_filename``, ``__globals__`` and frame and traceback
      attributes (``f_back``, ``f_lineno``, ``tb_frame``, ``sys._getframe``...).  CRUXEval's
      harness runs a program as ``__main__`` from a file, the independent checker as
      ``__check__`` from ``<row>``, codemorph's sandbox as ``__codemorph_program__`` from
      ``<program>``.  ``x.__name__`` and ``type(x).__name__`` are not flagged, nor is a
      module-level ``if __name__ == "__main__":`` whose body only evaluates expressions
      (it runs in none of the sandbox and the checker);
    * using a member of ``os``, ``sys``, ``datetime`` or ``importlib`` outside :data:`PURE_MEMBERS`
      (``os.getpid``, ``os.environ``, ``os.listdir``, ``sys.argv``, ``sys.getrefcount``,
      ``sys.version_info``, ``datetime.datetime.now``...), using the module itself as a
      value, or ``from os import *``; for ``datetime``, any attribute named ``now``,
      ``today``, ``utcnow``, ``fromtimestamp``, ``astimezone``, ``timestamp`` or ``ctime``
      anywhere in a module that imports it;
    * in a program that imports ``sqlite3``: a string whose SQL reads the clock, random
      numbers, the library's version, other database files or pragmas
      (:data:`SQL_NONDETERMINISM`: ``CURRENT_TIMESTAMP``, ``'now'``, ``random()``,
      ``ATTACH``, ``VACUUM``, ``PRAGMA``), and the attributes ``sqlite_version`` and
      ``sqlite_version_info``;
    * the builtins ``id`` (an address), ``hash`` and ``input`` when a name
      resolves to the builtin (a local variable called ``id`` does not count), and reading
      an attribute ``__hash__`` (defining a ``__hash__`` method does not count).  ``open``
      is not flagged: the sandbox runs every program in a fresh, empty work directory and
      refuses reading or writing files outside it (a ``"refused"`` outcome, never written),
      so a file the program reads is one it wrote in the same run.  ``hash``
      is flagged although the other runs catch most of it (a string's hash varies with
      ``PYTHONHASHSEED``, an object's with its address): a result that keeps one bit of
      it (``hash(object()) % 2``) agrees by chance in all of codemorph's runs one time in
      four or more, and a benchmark program has little reason to print hashes;
    * ``__import__``, ``importlib.import_module`` (through an ``import importlib``, with
      or without ``as``), ``eval``, ``exec`` and ``compile`` with a string-literal
      argument are checked as that import or code; with any other argument they are
      flagged (the code run is not known), as are ``from importlib import import_module``,
      ``import builtins`` and the name ``__builtins__`` (``builtins.id``).

    Not flagged, because codemorph's other runs reveal them (a second run at another heap
    state, a run in another interpreter process, runs under other ``PYTHONHASHSEED``
    values): ``repr``/``str`` of objects and functions (addresses), sets and dict keys of
    plain instances (identity order), sets of strings (hash order).  A result that keeps
    only a few bits of an address can still agree in every run by chance.

    Identifiers are compared after NFKC normalization, as Python reads them (``ｉｄ`` is
    ``id``).  Cost: a regular-expression scan when the code contains none of the words
    ``import``, ``id``, ``hash``, ``input``, ``eval``, ``exec``, ``compile``
    (most benchmark programs); otherwise a libcst parse and scope analysis, about 7 ms of
    CPU for a CRUXEval-sized program.

    Args:
        code: a module's source text.
        input_kind: how the program is run (:data:`~codemorph.rows.INPUT_KINDS`); a
            ``"stdin"`` program may read :data:`STDIN_READS` (its standard input is the
            row's input, and it runs as ``__main__``).
        harness: for a ``"call"`` program, the call expressions that run it: only the part
            of the program they can reach is checked (:func:`reached_part`), so a class
            whose unused method reads the clock is not flagged for a harness that never
            calls it.

    Returns:
        A human reason naming the first source found in source order, e.g.
        ``"reads the clock (time.time)"`` or ``"uses random numbers (import random)"``;
        ``None`` when none is found or when the code does not parse (rows whose code does
        not parse are rejected at the parse stage).
    """
    # identifiers are NFKC-normalized by Python (a fullwidth ``ｉｄ`` is ``id``): the
    # normalized text is checked too, when it differs and still parses
    if input_kind == "call" and harness:
        part = reached_part(code, harness)
        if part is not None and part != code:
            return nondeterminism_source(part, input_kind)
    normal = code if code.isascii() else unicodedata.normalize("NFKC", code)
    if not _WORDS.search(normal):
        return None  # every flagged construct needs one of these words (fast path)
    stdin = input_kind == "stdin"
    found = _check(code, stdin)
    if found is None and normal != code:
        found = _check(normal, stdin)
    return found


def process_change(code: str, input_kind: str = "args", harness: Sequence[str] | None = None) -> str | None:
    """What the program does to the process a harness shares with it, or ``None``: it rebinds
    or deletes a builtin (``builtins.len = ...``, ``__builtins__.len = ...``, ``setattr(builtins,
    ...)``: :data:`REBINDS_BUILTIN`), or it uses a member of :data:`PROCESS_CHANGES` (installs a
    signal handler, changes the working directory, installs a trace function).

    Such a program is also flagged by :func:`nondeterminism_source` (which names this reason
    first); this function lets a caller say what the program did rather than call it
    nondeterministic.  Names are resolved as there (``import signal as s`` then ``s.signal``,
    ``from os import chdir``); an over-approximation (a reference without a call counts).

    Args:
        code: a module's source text.
        input_kind: how the program is run (:data:`~codemorph.rows.INPUT_KINDS`).
        harness: for a ``"call"`` program, the call expressions that run it (only the part of
            the program they can reach is checked, :func:`reached_part`).

    Returns:
        A reason naming the first such use in source order, e.g. ``"rebinds a builtin
        (builtins.len), which changes ..."``; ``None`` when there is none or the code does not parse.
    """
    if input_kind == "call" and harness:
        part = reached_part(code, harness)
        if part is not None and part != code:
            return process_change(part, input_kind)
    normal = code if code.isascii() else unicodedata.normalize("NFKC", code)
    if not _CHANGE_WORDS.search(normal):
        return None
    try:
        module = cst.parse_module(normal)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return None
    found = sorted(_Finder(module).changes(), key=lambda t: t[0])
    return found[0][1] if found else None


#: words one of which every use :func:`process_change` names contains
_CHANGE_WORDS = re.compile(r"\b(?:builtins|__builtins__|" + "|".join(
    sorted({k.split(".")[1] for k in PROCESS_CHANGES})) + r")\b")


#: words one of which every flagged construct contains (import, a flagged builtin, __hash__, a
#: harness global not right after a dot, a harness attribute)
_WORDS = re.compile(r"\b(?:import|__import__|__builtins__|id|hash|__hash__|input|eval|exec|compile|globals|dir|vars)\b"
                    r"|(?<!\.)\b(?:" + "|".join(n for n in HARNESS_GLOBALS if n.startswith("__")) + r")\b"
                    r"|\b(?:" + "|".join(HARNESS_ATTRIBUTES) + r")\b")


def _check(code: str, stdin: bool = False) -> str | None:
    try:
        module = cst.parse_module(code)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return None
    return _Finder(module, stdin, "sqlite3" in code).first()


def _dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` of a Name/Attribute chain, else ``None``."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


def _bound(alias: cst.ImportAlias, name: str) -> str | None:
    """The name ``alias`` binds that is ``name``, or ``None``: ``import os.path`` binds both
    ``os`` and ``os.path`` (libcst records two assignments), ``import os.path as p`` binds ``p``."""
    if alias.asname is not None:
        return alias.asname.name.value if isinstance(alias.asname.name, cst.Name) else None
    mod = _alias_module(alias)
    return name if name in (mod, mod.split(".")[0]) else None


def _alias_module(alias: cst.ImportAlias) -> str:
    name = _dotted(alias.name)
    assert name is not None
    return name


def _string_arg(call: cst.Call) -> str | None:
    """The first positional argument of ``call`` when it is a plain string literal."""
    if not call.args or call.args[0].keyword is not None or call.args[0].star:
        return None
    val = call.args[0].value
    if isinstance(val, (cst.SimpleString, cst.ConcatenatedString)):
        s = val.evaluated_value
        return s if isinstance(s, str) else None
    return None


class _Finder:
    """Collects (position, reason) pairs over a module and its literal eval/exec strings."""

    def __init__(self, module: cst.Module, stdin: bool = False, sqlite: bool = False) -> None:
        self.module = module
        self.stdin = stdin
        self.sqlite = sqlite
        self.wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self.scopes = {s for s in self.wrapper.resolve(ScopeProvider).values() if s is not None}
        self.parents = self.wrapper.resolve(ParentNodeProvider)
        self.order = {id(n): i for i, n in enumerate(_walk(module))}

    def first(self) -> str | None:
        changes = sorted(self.changes(), key=lambda t: t[0])
        if changes:
            return changes[0][1]
        found = sorted(self._sources(), key=lambda t: t[0])
        return found[0][1] if found else None

    def changes(self) -> Iterable[tuple[int, str]]:
        """(position, reason) of each use that changes the process (:func:`process_change`)."""
        for node in _walk(self.module):
            if isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative \
                    and not isinstance(node.names, cst.ImportStar):
                mod = _dotted(node.module) or ""
                for alias in node.names:
                    full = f"{mod}.{_alias_module(alias)}"
                    if full in PROCESS_CHANGES:
                        yield self._pos(node), PROCESS_CHANGES[full].format(full)
            elif isinstance(node, cst.Name) and node.value == "__builtins__":
                yield from self._builtin_rebound("__builtins__", node)
        for mod, alias, bound, assignment in self._module_imports(_CHANGING_MODULES):
            for access in assignment.references:
                node = access.node
                if mod == "builtins" or (alias.asname is None and bound == "builtins"):
                    yield from self._builtin_rebound("builtins", node)
                    continue
                top_node = self._chain_top(node)
                base, full = _dotted(node), _dotted(top_node)  # type: ignore[arg-type]
                if base is None or full is None:
                    continue
                full = (mod if alias.asname is not None else bound) + full[len(base):]
                for name, why in PROCESS_CHANGES.items():
                    if full == name or full.startswith(name + "."):
                        yield self._pos(top_node), why.format(name)

    def _module_imports(self, modules: Any) -> Iterable[tuple[str, cst.ImportAlias, str, Any]]:
        """``(module, alias, bound name, assignment)`` for every name an ``import M`` /
        ``import M.sub`` / ``import M as n`` statement binds, in every scope, whose top-level
        module is in ``modules`` (a container of module names)."""
        for scope in self.scopes:
            for assignment in scope.assignments:
                if not isinstance(assignment, ImportAssignment) or not isinstance(assignment.node, cst.Import):
                    continue
                for alias in assignment.node.names:
                    mod = _alias_module(alias)
                    bound = _bound(alias, assignment.name)
                    if mod.split(".")[0] in modules and bound == assignment.name:
                        yield mod, alias, bound, assignment

    def _builtin_rebound(self, shown: str, node: cst.CSTNode) -> Iterable[tuple[int, str]]:
        """``builtins.len = ...`` / ``del builtins.len`` / ``builtins.len += ...`` /
        ``__builtins__['len'] = ...`` / ``setattr(builtins, ...)`` / ``delattr(builtins, ...)``,
        ``node`` being the module's name."""
        parent = self.parents.get(node)
        if isinstance(parent, cst.Arg) and parent.value is node:
            call = self.parents.get(parent)
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) \
                    and call.func.value in ("setattr", "delattr") and call.args and call.args[0] is parent:
                what = _string_arg(cst.Call(func=call.func, args=call.args[1:2])) if len(call.args) > 1 else None
                yield self._pos(call), REBINDS_BUILTIN.format(
                    f"{call.func.value}({shown}, {what!r})" if what is not None else f"{call.func.value}({shown}, ...)")
            return
        if isinstance(parent, cst.Attribute) and parent.value is node:
            target, shown = parent, f"{shown}.{parent.attr.value}"
        elif isinstance(parent, cst.Subscript) and parent.value is node:
            target = parent
            key = parent.slice[0].slice if len(parent.slice) == 1 else None
            name = key.value.evaluated_value if isinstance(key, cst.Index) and isinstance(
                key.value, cst.SimpleString) else None
            shown = f"{shown}[{name!r}]" if isinstance(name, str) else f"{shown}[...]"
        else:
            return
        holder = self.parents.get(target)
        if isinstance(holder, (cst.AssignTarget, cst.Del)) and holder.target is target \
                or isinstance(holder, (cst.AugAssign, cst.AnnAssign)) and holder.target is target:
            yield self._pos(target), REBINDS_BUILTIN.format(shown)
        elif isinstance(holder, (cst.Tuple, cst.List, cst.Element)):
            # ``builtins.len, builtins.max = a, b``: an element of an assignment target
            outer: cst.CSTNode | None = holder
            while isinstance(outer, (cst.Tuple, cst.List, cst.Element)):
                outer = self.parents.get(outer)
            if isinstance(outer, (cst.AssignTarget, cst.Del, cst.For)):
                yield self._pos(target), REBINDS_BUILTIN.format(shown)

    def _pos(self, node: cst.CSTNode) -> int:
        return self.order.get(id(node), 0)

    def _chain_top(self, node: cst.CSTNode) -> cst.CSTNode:
        """The outermost Attribute of which ``node`` is the base (``os`` -> ``os.path.join``)."""
        while True:
            parent = self.parents.get(node)
            if isinstance(parent, cst.Attribute) and parent.value is node:
                node = parent
            else:
                return node

    def _sources(self) -> Iterable[tuple[int, str]]:
        for node in _walk(self.module):
            if isinstance(node, cst.Import):
                for alias in node.names:
                    mod = _alias_module(alias)
                    top = mod.split(".")[0]
                    why = _module_reason(mod)
                    if why is not None:
                        yield self._pos(node), f"{why} (import {mod})"
            elif isinstance(node, cst.ImportFrom):
                if node.relative:
                    yield self._pos(node), "imports a module relative to the program's package"
                    continue
                mod = _dotted(node.module) if node.module is not None else ""
                top = (mod or "").split(".")[0]
                if top in PARTLY_FLAGGED:
                    if isinstance(node.names, cst.ImportStar):
                        yield self._pos(node), f"{PARTLY_FLAGGED[top]} (from {mod} import *)"
                    else:
                        for alias in node.names:
                            full = f"{mod}.{_alias_module(alias)}"
                            if not _pure(full) and not (self.stdin and full == "sys.stdin"):
                                yield self._pos(node), f"{PARTLY_FLAGGED[top]} ({full})"
                else:
                    why = _module_reason(mod or "")
                    if why is not None:
                        # ``from xml.etree import ElementTree``: the module or a submodule
                        if not isinstance(node.names, cst.ImportStar) and all(
                                _module_reason(f"{mod}.{_alias_module(a)}") is None for a in node.names):
                            continue
                        yield self._pos(node), f"{why} (from {mod} import ...)"
            elif isinstance(node, cst.Attribute) and node.attr.value in _DATETIME_CLOCK and self._imports_datetime():
                yield self._pos(node), f"{PARTLY_FLAGGED['datetime']} ({_dotted(node) or node.attr.value})"
            elif isinstance(node, cst.Attribute) and node.attr.value == "__hash__":
                yield self._pos(node), f"{FLAGGED_BUILTINS['hash']} (.__hash__)"
            elif isinstance(node, cst.Attribute) and node.attr.value in HARNESS_ATTRIBUTES:
                yield self._pos(node), f"{HARNESS_ATTRIBUTES[node.attr.value]} (.{node.attr.value})"
            elif isinstance(node, cst.Name) and node.value == "__builtins__":
                yield self._pos(node), f"{FLAGGED_MODULES['builtins']} (__builtins__)"
            elif isinstance(node, cst.Call):
                yield from self._dynamic(node)
                yield from self._globals_listed(node)
            elif isinstance(node, (cst.SimpleString, cst.FormattedStringText)) and self._imports_sqlite():
                text = node.evaluated_value if isinstance(node, cst.SimpleString) else node.value
                found = SQL_NONDETERMINISM.search(text) if isinstance(text, str) else None
                if found is not None:
                    yield self._pos(node), (f"runs SQL that may read the clock, random numbers, the library's "
                                            f"version or other files ({found.group(0).strip()!r})")
            if isinstance(node, cst.Attribute) and node.attr.value in SQLITE_MACHINE and self._imports_sqlite():
                yield self._pos(node), f"reads the machine's SQLite library version (.{node.attr.value})"
        # uses of partly flagged modules bound by `import os` / `import os.path as p`
        for mod, alias, bound, assignment in self._module_imports(PARTLY_FLAGGED):
            for access in assignment.references:
                yield from self._module_use(mod if alias.asname is not None else bound, access.node)
        for scope in self.scopes:
            for access in scope.accesses:
                for ref in access.referents:
                    if isinstance(ref, BuiltinAssignment) and ref.name in FLAGGED_BUILTINS \
                            and not (self.stdin and ref.name in STDIN_READS):
                        yield self._pos(access.node), f"{FLAGGED_BUILTINS[ref.name]} ({ref.name})"
                name = getattr(access.node, "value", None)
                if name in HARNESS_GLOBALS and all(isinstance(r, BuiltinAssignment) for r in access.referents) \
                        and not self._main_guard(access.node) and not (self.stdin and name in STDIN_READS):
                    # a global the harness sets (or a builtin of that name): not one the program bound
                    yield self._pos(access.node), f"{HARNESS_GLOBALS[name]} ({name})"

    def _main_guard(self, name: cst.CSTNode) -> bool:
        """Whether ``name`` is the ``__name__`` of a module-level ``if __name__ == "__main__":``
        whose body only evaluates expressions, asserts or passes: the block does not run in
        codemorph's sandbox nor in the independent checker, and running it in a harness that
        names the module ``__main__`` binds nothing the entry point could read (a call in
        it may still change a global object: not checked)."""
        comp = self.parents.get(name)
        if not (isinstance(comp, cst.Comparison) and len(comp.comparisons) == 1
                and isinstance(comp.comparisons[0].operator, cst.Equal)):
            return False
        other = comp.comparisons[0].comparator if comp.left is name else comp.left
        if not (isinstance(other, cst.SimpleString) and other.evaluated_value == "__main__"):
            return False
        guard = self.parents.get(comp)
        if not (isinstance(guard, cst.If) and guard.test is comp and self.parents.get(guard) is self.module):
            return False
        body = guard.body.body if isinstance(guard.body, cst.IndentedBlock) else [guard.body]
        for stmt in body:
            small = stmt.body if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else None
            if small is None or not all(isinstance(x, (cst.Expr, cst.Assert, cst.Pass)) for x in small):
                return False
        return guard.orelse is None

    def _globals_listed(self, call: cst.Call) -> Iterable[tuple[int, str]]:
        """``dir()`` / ``vars()`` without arguments outside any function: the module's globals,
        which the harness sets (``__name__``, ``__file__``...)."""
        if call.args or not isinstance(call.func, cst.Name) or call.func.value not in _GLOBALS_LISTERS \
                or not self._is_builtin(call.func):
            return
        node: cst.CSTNode | None = call
        while node is not None:
            if isinstance(node, (cst.FunctionDef, cst.Lambda)):
                return
            node = self.parents.get(node)
        yield self._pos(call), (f"lists its module's globals, which the harness sets (__name__, __file__...) "
                                f"({call.func.value}())")

    def _imports_datetime(self) -> bool:
        if not hasattr(self, "_dt"):
            self._dt = any(isinstance(n, cst.Import) and any(_alias_module(a).split(".")[0] == "datetime"
                                                             for a in n.names)
                           or isinstance(n, cst.ImportFrom) and n.module is not None
                           and (_dotted(n.module) or "").split(".")[0] == "datetime"
                           for n in _walk(self.module))
        return self._dt

    def _imports_sqlite(self) -> bool:
        """Whether the program may use ``sqlite3`` (it spells the name anywhere: an import,
        ``__import__('sqlite3')``...)."""
        return self.sqlite

    def _module_use(self, mod: str, node: cst.CSTNode) -> Iterable[tuple[int, str]]:
        top_node = self._chain_top(node)
        base = _dotted(node)  # type: ignore[arg-type]
        full = _dotted(top_node)  # type: ignore[arg-type]
        if base is None or full is None:
            return
        full = mod + full[len(base):]
        reason = PARTLY_FLAGGED[mod.split(".")[0]]
        if full == "importlib.import_module":
            # ``importlib.import_module('math')`` is that import: checked as one
            call = self.parents.get(top_node)
            text = _string_arg(call) if isinstance(call, cst.Call) and call.func is top_node else None
            if text is not None:
                yield from self._imported(top_node, text, full)
                return
        if not _pure(full) and not (self.stdin and (full == "sys.stdin" or full.startswith("sys.stdin."))
                                    and not _STDIN_DESCRIPTOR & set(full.split("."))):
            yield self._pos(top_node), f"{reason} ({full})"

    def _imported(self, node: cst.CSTNode, text: str, how: str) -> Iterable[tuple[int, str]]:
        """A module imported by name (``__import__('time')``): flagged as its import."""
        top = text.split(".")[0]
        if top in PARTLY_FLAGGED:
            yield self._pos(node), f"{PARTLY_FLAGGED[top]} ({how}({text!r}))"
            return
        why = _module_reason(text)
        if why is not None:
            yield self._pos(node), f"{why} ({how}({text!r}))"

    def _dynamic(self, call: cst.Call) -> Iterable[tuple[int, str]]:
        name = _dotted(call.func)
        if name not in _DYNAMIC or not self._is_builtin(call.func):
            return
        text = _string_arg(call)
        if text is None:
            yield self._pos(call), f"runs code or imports a module chosen at run time ({name})"
            return
        if name == "__import__":
            yield from self._imported(call, text, name)
            return
        inner = nondeterminism_source(text)
        if inner is None:
            try:
                cst.parse_module(text)
            except Exception:
                try:
                    cst.parse_expression(text)
                except Exception:
                    yield self._pos(call), f"runs code that codemorph cannot parse ({name})"
            return
        yield self._pos(call), f"{inner}, in {name}"

    def _is_builtin(self, func: cst.BaseExpression) -> bool:
        for scope in self.scopes:
            for access in scope.accesses:
                if access.node is func:
                    return any(isinstance(r, BuiltinAssignment) for r in access.referents) or not access.referents
        return True


def _module_reason(mod: str) -> str | None:
    """Why importing the module ``mod`` (dotted) is flagged, or ``None`` (:data:`PURE_MODULES`;
    :data:`PARTLY_FLAGGED` modules are checked by their uses instead)."""
    parts = mod.split(".")
    top = parts[0]
    if top in FLAGGED_MODULES:
        return FLAGGED_MODULES[top]
    if top in PARTLY_FLAGGED:
        return None
    if any(".".join(parts[:i]) in PURE_MODULES for i in range(1, len(parts) + 1)):
        return None
    if top not in sys.stdlib_module_names:
        return NON_STDLIB
    return UNKNOWN_MODULE


def _pure(full: str) -> bool:
    """Whether the dotted name ``full`` is, or is a member of, a :data:`PURE_MEMBERS` entry
    (with the ``datetime`` clock members excluded)."""
    parts = full.split(".")
    if parts[0] == "datetime" and any(p in _DATETIME_CLOCK for p in parts[1:]):
        return False
    return any(".".join(parts[:i]) in PURE_MEMBERS for i in range(1, len(parts) + 1))


def _walk(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """Nodes in source order (pre-order), iteratively (deep expressions do not recurse)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))
