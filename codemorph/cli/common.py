"""What every ``codemorph`` command shares: the consoles, exit codes, failing with a
message, reading a program file, checking an output path, and the progress bar and
summary tables of the data-set commands (``generate``, ``perturb``, ``evaluate``).

The lowest module of :mod:`codemorph.cli`: it imports no other CLI module (only the light
package, for :data:`~codemorph.cli.EXIT_INTERRUPTED`); each command
module (:mod:`~codemorph.cli.generate`, :mod:`~codemorph.cli.perturb`,
:mod:`~codemorph.cli.evaluate`, :mod:`~codemorph.cli.programs`,
:mod:`~codemorph.cli.listing`) imports from it, and :mod:`codemorph.cli.main` puts the
commands on one typer app.

Exit codes: 0 the run finished (rows that could not be processed, and unexpected
exceptions a row or a transform raised, are in the rejects file and counted in the
summary; ``--fail-on-error`` makes such an exception exit 1); 2 bad invocation or bad input
(missing/empty file, unknown transform, a program that does not parse); 1 an unexpected
internal error of the run itself; 130 interrupted (Ctrl-C or ``SIGTERM``).
"""

from __future__ import annotations

import fnmatch
import math
import os
import stat
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from codemorph.cli import EXIT_INTERRUPTED
from codemorph.errors import InputError
from codemorph.jobs.executors import DEFAULT_WORKERS_HELP
from codemorph.rows.dataset import input_files, progress_path, rejects_path
from codemorph.rows.lock import lock_path, output_lock

__all__ = ["out_console", "err_console", "EXIT_OK", "EXIT_INTERNAL", "EXIT_INPUT", "DEFAULT_WORKERS_HELP",
           "FAIL_ON_ERROR_HELP", "fail", "locked_output", "read_text", "check_output_path", "progress_bar", "exit_on_errors",
           "print_generate_summary", "print_perturb_summary", "pct", "pct1", "print_table", "two_lines",
           "check_exception_targets"]


def _piped_width() -> int | None:
    """The width of ``out_console``: a terminal's own, or ``COLUMNS`` when set (rich reads
    it), else 120 for a pipe or file (rich's default of 80 would squeeze the tables)."""
    columns = os.environ.get("COLUMNS", "")
    return None if sys.stdout.isatty() or (columns.isdigit() and int(columns) > 0) else 120


out_console = Console(width=_piped_width())
err_console = Console(stderr=True)

EXIT_OK, EXIT_INTERNAL, EXIT_INPUT = 0, 1, 2

#: help text of every data-set command's ``--fail-on-error``
#: the default of ``--worker-memory`` (``generate``, ``perturb``), MiB; README, "Memory per worker"
WORKER_MEMORY_MIB = 4096
#: the largest ``--worker-memory`` (MiB): ``setrlimit`` takes a signed 64-bit byte count
WORKER_MEMORY_MAX_MIB = (2**63 - 1) // 2**20
WORKER_MEMORY_HELP = ("Address-space cap of each worker's host process, in MiB (RLIMIT_AS; parsing, transforms, "
                      "verification; the sandbox has --memory). A row that needs more is rejected (stage worker), "
                      "not the run. 0 = no cap. Not applied with --workers 1 or --executor dask.")


def worker_memory_bytes(mib: int) -> int | None:
    """``--worker-memory MiB`` in bytes, ``None`` for 0 (no cap); ends the command (exit 2)
    for a value from 1 to 255 MiB or below 0 (no Python worker starts in that little), or
    above :data:`WORKER_MEMORY_MAX_MIB` (every worker would die on ``setrlimit``).  A
    cap above the hard ``RLIMIT_AS`` this process runs under (``ulimit -v``) becomes that limit."""
    if mib == 0:
        return None
    if mib < 256:
        fail(f"--worker-memory must be 0 (no cap) or at least 256 MiB, got {mib}")
    if mib > WORKER_MEMORY_MAX_MIB:
        fail(f"--worker-memory must be at most {WORKER_MEMORY_MAX_MIB} MiB (the largest address-space limit the "
             f"system takes), or 0 for no cap, got {mib}")
    try:
        import resource

        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    except (ImportError, OSError, ValueError):  # pragma: no cover - not on Linux/macOS
        return mib * 1024**2
    # a hard limit set from outside (ulimit -v) below the cap: the workers have that one anyway
    return mib * 1024**2 if hard == resource.RLIM_INFINITY else min(mib * 1024**2, hard)


FAIL_ON_ERROR_HELP = ("Exit 1 when a transform or a row's processing raised an unexpected exception (each is in "
                      "the rejects file and counted in the summary; without this option the run exits 0).")


def fail(message: str, code: int = EXIT_INPUT) -> NoReturn:
    """Print ``error: message`` on stderr and end the command with exit ``code`` (default 2,
    bad invocation or input).  Raises :class:`typer.Exit`."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@contextmanager
def locked_output(rows_path: Path, resumable: bool = False) -> Iterator[None]:
    """Hold the lock of the output ``rows_path`` (:func:`~codemorph.rows.lock.output_lock`)
    for the ``with`` block; when another codemorph run holds it, end the command with
    exit 2 and a message naming the output, that run's pid and what to do (``resumable``:
    the command has ``--resume``, the message mentions it)."""
    try:
        lock = output_lock(rows_path, resumable)
        lock.__enter__()
    except InputError as exc:
        fail(str(exc))
    try:
        yield
    finally:
        lock.__exit__(None, None, None)


def read_text(path: Path, what: str) -> str:
    """The UTF-8 text of the file ``path`` (``what`` names it in messages); exits 2 when it
    is missing, a directory or not UTF-8."""
    if not path.exists():
        fail(f"{path}: no such file ({what})")
    if path.is_dir():
        fail(f"{path}: is a directory, expected a Python file ({what})")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        fail(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})")


def check_output_path(output: Path, in_path: Path) -> None:
    """Refuse an output path that is a directory, not a regular file (a device such as
    ``/dev/full`` or ``/dev/stdout``, a fifo, a socket: the job truncates its output, writes
    ``OUT.rejects.jsonl``, ``OUT.progress.jsonl`` and a lock file next to it, and resumes by
    truncating it to a checkpoint) or one of the input files, or whose rejects/progress files
    the input directory or pattern would read (exit 2, before any file is created)."""
    if output.is_dir():
        fail(f"{output}: is a directory; expected an output file path (-o OUT.jsonl)")
    try:
        mode = output.stat().st_mode
    except OSError:
        mode = None  # absent (created by the job), or a dangling link: the job reports it
    if mode is not None and not stat.S_ISREG(mode):
        fail(f"{output}: is not a regular file (a device, a fifo or a socket); the output is a file that the run "
             f"creates next to its rejects and checkpoint files (-o OUT.jsonl)")
    try:
        inputs = [Path(p).resolve() for p in input_files(in_path)]
    except (InputError, OSError):
        return  # the job reports a bad input path itself

    def is_input(path: Path) -> bool:
        """The same file as an input: the same path, or another name of it (a hard link)."""
        if path.resolve() in inputs:
            return True
        try:
            here = path.stat()
        except OSError:
            return False  # absent: created by the job
        for p in inputs:
            try:
                if os.path.samestat(here, p.stat()):
                    return True
            except OSError:
                continue
        return False

    if is_input(output):
        fail(f"{output}: is one of the input files; writing it would destroy the input (choose another -o)")
    for companion, what in ((rejects_path(output), "rejects file"), (progress_path(output), "checkpoint file"),
                            (lock_path(output), "lock file")):
        if is_input(companion):
            fail(f"{companion}: is one of the input files, and it is the {what} that -o {output} writes next to "
                 f"the output; writing it would destroy the input (choose another -o, or rename the input)")
    # the job writes OUT, OUT.rejects.jsonl and OUT.progress.jsonl; none of them may be
    # something the input directory or pattern would read (the run would read its own output)
    written = [output.resolve(), rejects_path(output).resolve(), progress_path(output).resolve()]
    src = Path(in_path)
    if src.is_dir():
        clash = [w for w in written if w.parent == src.resolve()]
    elif not src.exists():
        pattern = os.path.abspath(str(src))
        clash = [w for w in written if fnmatch.fnmatch(str(w), pattern)]
    else:
        clash = []
    if clash:
        fail(f"{output}: the output files ({', '.join(w.name for w in clash)}) would be read as input by "
             f"{in_path}; write them outside the input directory or pattern")


@contextmanager
def progress_bar(command: str, remaining: bool = True, transient: bool = False,
                 interrupted: str | Callable[[], str] = "") -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar on stderr, ``<command> ━━━ done/total rows elapsed [remaining]``;
    yields the ``progress(rows_done, rows_total)`` callback the jobs take.

    A ``KeyboardInterrupt`` inside (Ctrl-C, or ``SIGTERM``: :func:`codemorph.cli.main.main`
    turns it into one) ends the bar and the command with ``error: <command> interrupted``
    followed by ``interrupted`` (e.g. how to resume; a callable is called then, so that the
    message can say what the run left behind), exit code 130, instead of a silent exit.

    Raises:
        typer.Exit: code 130, on an interruption."""
    columns: list[Any] = [TextColumn(f"[bold]{command}[/]"), BarColumn(), MofNCompleteColumn(), TextColumn("rows"),
                          TimeElapsedColumn()]
    if remaining:
        columns.append(TimeRemainingColumn())
    # redrawn twice a second (rich's default is 10): the bar moves by rows and the clock by
    # seconds, and every redraw costs the process that generates the rows CPU time
    progress = Progress(*columns, console=err_console, transient=transient, refresh_per_second=2)
    task = progress.add_task("rows", total=None)

    # drawn from the job's first report on: a job that ends before it (a missing input file,
    # an argument the job refuses) shows its error without an empty bar above it
    def tick(done: int, total: int) -> None:
        if not progress.live.is_started:
            progress.start()
        progress.update(task, completed=done, total=total)

    try:
        yield tick
    except KeyboardInterrupt:
        if progress.live.is_started:
            progress.stop()
        if callable(interrupted):
            interrupted = interrupted()
        err_console.print(f"[bold red]error:[/] {command} interrupted" + (f"; {interrupted}" if interrupted else ""),
                          highlight=False)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        if progress.live.is_started:
            progress.stop()


def exit_on_errors(errors: int, fail_on_error: bool) -> None:
    """With ``--fail-on-error``, end the command with exit 1 when ``errors`` (unexpected
    exceptions caught during the run, each in the rejects file) is not 0."""
    if fail_on_error and errors:
        err_console.print(f"[bold red]error:[/] {errors} unexpected exception(s) during the run (see the rejects "
                          "file); exit 1 (--fail-on-error)", highlight=False)
        raise typer.Exit(EXIT_INTERNAL)


def _errors_words(summary: Any) -> str:
    n = getattr(summary, "errors", 0)
    return f"; {n} errors (unexpected exceptions, in the rejects file)" if n else ""


def _count(n: int, noun: str) -> str:
    """``"1 row"``, ``"2 rows"``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def print_generate_summary(summary: Any, in_path: Any) -> None:
    """Print a :class:`~codemorph.jobs.generate.GenerateSummary`: per variant, variants
    written, unreached, weak, not applicable, differs, inconclusive, failed on the row's input
    (``failed``), withheld (another variant's failure rejected the row), transform exceptions (``errors``) and time; then one line of totals."""
    table = Table(title=f"codemorph generate: {in_path} -> {summary.out_path}", title_justify="left")
    table.add_column("variant", no_wrap=True)
    limit = getattr(summary, "max_naturalness_delta", None)
    cols = ["applied", "unreached", "weak", "not applicable", "differs", "inconclusive", "failed", "withheld",
            "errors"]
    if limit is not None:
        cols.append("unnatural")
    for col in (*cols, "naturalness", "time (s)"):
        table.add_column(col, justify="right")
    deltas = getattr(summary, "naturalness_per_transform", {})
    for name, c in summary.per_transform.items():
        cells = [str(c["written"] + c["written-unreached"] + c["written-weak"]), str(c["written-unreached"]),
                 str(c["written-weak"]), str(c["not-applicable"]), str(c["rejected"]), str(c["inconclusive"]), str(c["error"]),
                 str(c["withheld"]), str(c["transform-error"])]
        if limit is not None:
            cells.append(str(c["unnatural"]))
        d = deltas.get(name) or []
        cells.append(f"{math.fsum(d) / len(d):+.3f}" if d else "-")
        table.add_row(name, *cells, f"{summary.time_per_transform[name]:.1f}")
    print_table(table)
    out_console.print("applied: variants written (unreached: of those, verified on inputs that never ran the "
                      "changed code; weak: compared on fewer distinct inputs than --min-inputs); differs: rejected by verification; failed: the variant did not return the "
                      "recorded output on the row's input; withheld: verified, but its row was rejected because "
                      "another variant's run on the row's input gave another result (that variant is counted "
                      "under its own transform, the row's reject names it); errors: a transform raised"
                      + (f"; unnatural: naturalness delta above {limit:g}" if limit is not None else "")
                      + " (all in the rejects file); naturalness: mean naturalness_delta of the written "
                        "variants, bits per token over the original", highlight=False)
    perturbations = getattr(summary, "perturbations_written", 0)
    out_console.print(
        f"{_count(summary.rows_read, 'row')} read: {_count(summary.originals_written, 'original')} and "
        f"{_count(summary.variants_written, 'variant')}"
        f"{' and ' + _count(perturbations, 'input perturbation') if perturbations else ''} written to "
        f"{summary.out_path}; {_count(summary.rows_rejected, 'row')} and "
        f"{_count(getattr(summary, 'variants_rejected', 0), 'variant')} rejected (see {summary.rejects_path})"
        f"{_errors_words(summary)}; {summary.seconds:.1f} s", highlight=False)
    memory = getattr(summary, "memory", None)
    if memory:
        mib = 1024 * 1024
        workers = "; ".join(f"{w.host / mib:.0f} / {w.sandbox / mib:.0f}" for _, w in sorted(memory.items()))
        out_console.print(f"peak memory per worker (MiB, host process / sandbox): {workers}", highlight=False)
    if getattr(summary, "rows_resumed", 0):
        out_console.print(f"resumed: the first {summary.rows_resumed} input rows were already done "
                          f"(not counted above)", highlight=False)
    for name, c in summary.per_transform.items():
        if c["transform-error"]:
            err_console.print(f"warning: {name}: a transform raised on {c['transform-error']} rows (stage "
                              f"'transform' in {summary.rejects_path})", highlight=False)


def print_perturb_summary(summary: Any, console: Console | None = None) -> None:
    """Print a :class:`~codemorph.jobs.perturb.PerturbSummary`: the per-target table and a
    one-line account of the run."""
    from codemorph.jobs.perturb import summary_table

    console = console or out_console
    print_table(summary_table(summary), console)
    console.print(f"{_count(summary.rows_read, 'row')} read, {summary.programs_searched} searched, "
                  f"{_count(summary.rows_written, 'row')} written to {summary.out_path}; "
                  f"{summary.rows_rejected} rejected (see {summary.rejects_path})"
                  f"{_errors_words(summary)}; {summary.executions} executions; {summary.seconds:.1f} s",
                  highlight=False)


def two_lines(header: str) -> str:
    """``header`` split at the space nearest its middle (``"not applicable"`` ->
    ``"not\\napplicable"``); one word stays as it is."""
    spaces = [i for i, ch in enumerate(header) if ch == " "]
    if "\n" in header or not spaces:
        return header
    mid = min(spaces, key=lambda i: (max(i, len(header) - i - 1), i))
    return header[:mid] + "\n" + header[mid + 1:]


#: narrowest a text column (names) is squeezed to before the table grows past the console
_TEXT_MIN = 12


def print_table(table: Table, console: Console | None = None) -> None:
    """Print a table of results so that no number is cut: every right-justified column
    (numbers) keeps its widest cell whole (``no_wrap``); when the table is wider than the
    console, a header longer than its column's numbers is wrapped onto two lines and text
    columns fold their long names onto more lines instead of cutting them
    (``overflow="fold"``).  When even that does not fit the console (a narrow terminal,
    ``COLUMNS``), the table is printed wider than the console, never cut, its names whole.

    Args:
        table: a :class:`rich.table.Table` with its rows added.
        console: where to print; default :data:`out_console`.
    """
    from rich.cells import cell_len

    console = console or out_console

    def lines_width(text: str) -> int:
        return max((cell_len(line) for line in text.split("\n")), default=0)

    def need(wrap_headers: bool, text_cap: int = _TEXT_MIN) -> int:
        total = len(table.columns) + 1  # the borders
        for col in table.columns:
            widest = max((lines_width(str(c)) for c in col._cells), default=1)
            header = str(col.header)
            if col.justify == "right":
                if wrap_headers and "\n" not in header and cell_len(header) > max(widest, 6):
                    header = col.header = two_lines(header)
                col.no_wrap = True
                col.min_width = width = max(widest, lines_width(header))
            else:
                col.overflow, col.no_wrap = "fold", False
                width = min(max(widest, *(cell_len(w) for w in header.split() or [""])), text_cap)
            total += width + 2  # the cell padding
        return total

    width = need(False)
    if width > console.width:
        width = need(True)
    if width <= console.width:
        console.print(table)
        return
    # wider than the console anyway: names whole too
    width = need(True, text_cap=console.width)
    old = console._width
    console.width = width
    try:
        console.print(table, crop=False)
    finally:
        console._width = old


def check_exception_targets(names: Iterable[str], option: str) -> None:
    """Check the exception classes asked of an input perturbation search before the run.

    A name close to a built-in exception class's (``ValueErr``: a typo, found by
    :mod:`difflib`) or that is no class name at all is an error (exit 2) saying what was
    given and what is expected; any other name that is not a built-in class is allowed (a
    program may define and raise that class) with a warning; a built-in class with
    subclasses gets a note that targets match the exact class name.

    Args:
        names: the values of the option (``"any-exception"`` allowed).
        option: the option's spelling in messages (``"-e/--exception"``).
    """
    import builtins
    import difflib

    builtin_exceptions = sorted(n for n, v in vars(builtins).items()
                                if isinstance(v, type) and issubclass(v, BaseException))
    for name in names:
        if name == "any-exception":
            continue
        if name not in builtin_exceptions:
            close = difflib.get_close_matches(name, [*builtin_exceptions, "any-exception"], n=3, cutoff=0.75)
            if close or not name.isidentifier():
                # a typo of a built-in class or no class name at all: it would search every
                # program in vain, so it is an error before the run
                fail(f"{option} {name!r} is not a built-in exception class"
                     + (f" (did you mean {', '.join(close)}?)" if close else " (not a class name)")
                     + "; expected a built-in exception class name such as ValueError, 'any-exception', or the "
                       "exact name of an exception class the programs define")
            err_console.print(f"warning: {name!r} is not a builtin exception class; only programs that define and "
                              f"raise a class of exactly that name can reach it", highlight=False)
        else:
            examples = _subclass_examples(name)
            if examples:
                err_console.print(f"note: targets match the exact class name: {name} does not match its subclasses "
                                  f"(e.g. {', '.join(examples)})", highlight=False)


#: standard-library subclasses of built-in exception classes, as examples in
#: ``check_exception_targets``'s note besides the built-in subclasses (the subclasses loaded
#: in the process would name codemorph's own, ``UnknownTransformError``, or a third party's)
_STDLIB_SUBCLASSES = {"KeyError": ("zoneinfo.ZoneInfoNotFoundError",),
                      "ValueError": ("json.JSONDecodeError",),
                      "ZeroDivisionError": ("decimal.DivisionByZero",),
                      "TypeError": ("decimal.FloatOperation",),
                      "AttributeError": ("dataclasses.FrozenInstanceError",)}


def _subclass_examples(name: str) -> list[str]:
    """Up to three subclasses of the built-in exception class ``name``: the built-in ones,
    then standard-library examples (``json.JSONDecodeError``)."""
    import builtins

    own = sorted(c.__name__ for c in getattr(builtins, name).__subclasses__() if c.__module__ == "builtins")
    return (own + list(_STDLIB_SUBCLASSES.get(name, ())))[:3]


def pct(v: float | None) -> str:
    """A fraction as a percentage with two decimals (``"-"`` for ``None``)."""
    return "-" if v is None else f"{100 * v:.2f}"


def pct1(v: float | None) -> str:
    """A fraction as a percentage with one decimal, never ``-0.0`` (``"-"`` for ``None``)."""
    if v is None:
        return "-"
    r = round(100 * v, 1)
    return f"{r if r != 0 else 0.0:.1f}"


#: ``--format`` values of ``generate`` and ``perturb``
OUTPUT_FORMATS = ("jsonl", "codemind")
#: the JSON Lines file a ``--format codemind`` run keeps inside its data-set folder
CODEMIND_ROWS_FILE = "codemorph.jsonl"


def output_target(output: Path, fmt: str, in_path: Path) -> tuple[Path, Path | None]:
    """``(JSON Lines path the job writes, CodeMind folder to fill or None)`` for ``-o`` and
    ``--format``: with ``codemind``, ``-o`` is the ``dataset`` folder (created) and the rows
    are also kept, with their rejects and checkpoint, as ``<folder>/codemorph.jsonl``."""
    if fmt not in OUTPUT_FORMATS:
        fail(f"--format must be one of {', '.join(OUTPUT_FORMATS)}, got {fmt!r}")
    if fmt == "jsonl":
        check_output_path(output, in_path)
        return output, None
    if output.exists() and not output.is_dir():
        fail(f"{output}: exists and is not a folder; --format codemind writes a dataset folder (-o DATASET_DIR)")
    if not output.parent.exists():
        fail(f"{output.parent}: output directory does not exist")
    try:
        inputs = [Path(p).resolve() for p in input_files(in_path)]
    except (InputError, OSError):
        inputs = []
    here = output.resolve()
    if any(here == p or here in p.parents for p in inputs):
        fail(f"{output}: holds input files; writing the layout there would mix output with input (choose another -o)")
    output.mkdir(exist_ok=True)
    return output / CODEMIND_ROWS_FILE, output


def write_codemind_output(rows_path: Path, folder: Path, in_path: Path) -> int:
    """Write the rows of ``rows_path`` as ``folder/<bench>/<id>/{main.py,input.txt,output.txt}``
    (bench: the row's ``bench`` column, else the input's name without ``.jsonl``); returns
    the number of row folders written."""
    from codemorph.rows.codemind import CodemindWriter

    name = Path(in_path).name
    for suffix in (".gz", ".jsonl", ".parquet"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    try:
        return CodemindWriter(folder, bench=name or "dataset").write_jsonl(rows_path)
    except InputError as exc:
        fail(str(exc))
        return 0
