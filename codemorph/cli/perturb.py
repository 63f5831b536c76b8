"""The ``codemorph perturb`` command (typer + rich), registered on the app by
:mod:`codemorph.cli.main` as ``app.command("perturb")(perturb_command)``.

Exit codes follow the main CLI (:mod:`codemorph.cli.common`): 0 the run finished
(unprocessable rows are in the rejects file; ``--fail-on-error`` makes a row whose search
raised exit 1), 2 bad invocation or bad input (missing/empty file, malformed target name).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import List, Optional

import typer

from codemorph.cli.common import (DEFAULT_WORKERS_HELP, FAIL_ON_ERROR_HELP, WORKER_MEMORY_HELP, WORKER_MEMORY_MIB,
                                  check_exception_targets, err_console, exit_on_errors, fail, locked_output,
                                  out_console, output_target, print_perturb_summary, progress_bar,
                                  worker_memory_bytes, write_codemind_output)

__all__ = ["perturb_command", "print_summary"]

#: the summary printer of ``perturb`` (kept under its former name)
print_summary = print_perturb_summary


def _interrupted_message(rows_path: Path) -> str:
    """What an interrupted ``perturb`` writing ``rows_path`` tells its user: where the rows
    of the input rows it finished are (it has no ``--resume``), or that none was written."""
    try:
        written = rows_path.stat().st_size > 0
    except OSError:
        written = False
    if not written:
        return "no row was written yet; run the same command again to start over"
    return (f"the rows written so far are in {rows_path}, for the input rows finished; perturb has no --resume: "
            "run the same command again to search every row from the start")


def perturb_command(
    input_path: Optional[Path] = typer.Argument(None, metavar="[IN.jsonl]",
                                                help="CRUXEval-format JSON Lines (id, code, input, output), Parquet, "
                                                     "HumanEval/MBPP rows, or a CodeMind/ExeRScope dataset folder. "
                                                     "Default: the small data set bundled with codemorph."),
    output: Path = typer.Option(Path("codemorph-perturb.jsonl"), "--output", "-o",
                                help="Output JSON Lines file (--format codemind: the dataset folder to write)."),
    fmt: str = typer.Option("jsonl", "--format", help="jsonl, or codemind: also write every row as "
                                                      "OUT/<bench>/<id>/{main.py,input.txt,output.txt}."),
    exception: Optional[List[str]] = typer.Option(
        None, "--exception", "-e",
        help="Exception class to drive programs into (repeatable), or 'any-exception'. "
             "Default: IndexError, KeyError, ValueError, ZeroDivisionError, TypeError, AttributeError, "
             "RecursionError, StopIteration, UnboundLocalError, AssertionError and any-exception."),
    output_changes: int = typer.Option(1, "--output-changes", help="Output-changing inputs wanted per program."),
    per_exception: int = typer.Option(1, "--per-exception", help="Rows wanted per program and exception class."),
    budget: int = typer.Option(1500, "--budget", help="Executions per program (search phases)."),
    seconds: float = typer.Option(20.0, "--seconds", help="Wall-clock cap in seconds per program (search phases); "
                                  "the execution budget normally ends the search first, which keeps output reproducible."),
    seed: int = typer.Option(0, "--seed", help="Master seed."),
    workers: int = typer.Option(0, "--workers", help="Parallel worker processes, each with one sandbox worker "
                                                     f"({DEFAULT_WORKERS_HELP})."),
    allow_type_change: bool = typer.Option(False, "--allow-type-change",
                                           help="Also search inputs whose arguments change type "
                                                "(labelled type_changing in every row)."),
    strategy: Optional[List[str]] = typer.Option(None, "--strategy",
                                                 help="mutation, guided, z3, crosshair (repeatable). "
                                                      "Default: mutation, guided, z3."),
    executor: str = typer.Option("local", help="Where rows are searched: local (--workers processes) or dask "
                                               "(a Dask distributed cluster; needs codemorph[dask])."),
    scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address for --executor dask, "
                                                       "e.g. tcp://10.0.0.1:8786."),
    rows_per_task: int = typer.Option(8, help="Rows per Dask task (--executor dask)."),
    worker_memory: int = typer.Option(WORKER_MEMORY_MIB, "--worker-memory", metavar="MiB",
                                      help=WORKER_MEMORY_HELP),
    fail_on_error: bool = typer.Option(False, "--fail-on-error", help=FAIL_ON_ERROR_HELP),
) -> None:
    """Search inputs near each row's input that raise the chosen exception classes or
    change the output; write one row per finding (kind input-perturbation)."""
    from codemorph.jobs.executors import default_workers, make_executor
    from codemorph.rows.dataset import default_dataset_path
    from codemorph.errors import InputError
    from codemorph.jobs.perturb import DEFAULT_EXCEPTIONS, PerturbConfig, perturb_dataset
    from codemorph.perturb.search import ALL_STRATEGIES, DEFAULT_STRATEGIES, Budget

    strategies = tuple(strategy) if strategy else DEFAULT_STRATEGIES
    bad = [s for s in strategies if s not in ALL_STRATEGIES]
    if bad:
        fail(f"unknown strategy {bad[0]!r}; choose from {', '.join(ALL_STRATEGIES)}")
    if "crosshair" in strategies:
        import importlib.util

        if importlib.util.find_spec("crosshair") is None:
            fail("--strategy crosshair needs CrossHair: pip install 'codemorph[crosshair]'")
    check_exception_targets(exception or (), "-e/--exception")
    config = PerturbConfig(exceptions=tuple(exception) if exception else DEFAULT_EXCEPTIONS,
                           output_changes=output_changes, per_exception=per_exception,
                           budget=Budget(executions=budget, seconds=seconds), seed=seed,
                           workers=workers or default_workers(), allow_type_change=allow_type_change,
                           strategies=strategies, worker_memory=worker_memory_bytes(worker_memory))
    in_path = input_path or default_dataset_path()
    for opt, value, least in (("--workers", workers, 0), ("--output-changes", output_changes, 0),
                              ("--budget", budget, 1), ("--per-exception", per_exception, 1)):
        if value < least:
            fail(f"{opt} must be >= {least}, got {value}")
    rows_path, layout = output_target(output, fmt, in_path)
    try:
        runner = make_executor(executor, scheduler, rows_per_task)
    except (ValueError, ImportError) as exc:
        fail(str(exc))
    with locked_output(rows_path):  # the whole run, the CodeMind folder included: one writer per output
        try:
            with progress_bar("perturb", interrupted=partial(_interrupted_message, rows_path)) as tick:
                summary = perturb_dataset(in_path, rows_path, config, progress=tick,
                                          executor=None if executor == "local" else runner)
        except (InputError, ValueError) as exc:
            fail(str(exc) if executor != "dask" or isinstance(exc, InputError)
                  else f"cannot use the Dask scheduler {scheduler}: {exc}")
        except (OSError, TimeoutError) as exc:
            if executor != "dask":
                raise
            fail(f"cannot use the Dask scheduler {scheduler}: {type(exc).__name__}: {exc}")
        print_perturb_summary(summary)
        if layout is not None:
            n = write_codemind_output(rows_path, layout, in_path)
            out_console.print(f"{n} row folders written to {layout} (CodeMind/ExeRScope layout)", highlight=False)
    exit_on_errors(summary.errors, fail_on_error)
