"""The ``codemorph generate`` command: verified variants of every row of a data set."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import List, Optional

import typer

from codemorph.cli.common import (DEFAULT_WORKERS_HELP, FAIL_ON_ERROR_HELP, WORKER_MEMORY_HELP, WORKER_MEMORY_MIB,
                                  check_exception_targets, exit_on_errors, fail, locked_output, out_console,
                                  output_target, print_generate_summary, progress_bar, worker_memory_bytes,
                                  write_codemind_output)
from codemorph.errors import InputError, OutputWriteError, UnknownTransformError

__all__ = ["generate", "interrupted_message", "output_write_message"]


def output_write_message(exc: OutputWriteError) -> str:
    """What ``generate`` tells its user when a file of its output could not be written:
    ``cannot write out.jsonl: No space left on device; the rows written so far are kept;
    free space and run the same command with --resume`` (for another error than a full disk
    or quota: ``...; fix that and run the same command with --resume``)."""
    todo = "free space" if exc.out_of_space else "fix that"
    return f"{exc}; the rows written so far are kept; {todo} and run the same command with --resume"


def interrupted_message(rows_path: Path) -> str:
    """What an interrupted ``generate`` writing ``rows_path`` tells its user: where the rows
    written so far are and to resume, or, when its checkpoint records no finished input row
    yet, that nothing was written (``--resume`` would start from the first row too), or, when
    every finished row was rejected (``rows_path`` is empty), where the rejects are."""
    from codemorph.rows.dataset import checkpoint_rows, progress_path, rejects_path

    done = checkpoint_rows(progress_path(rows_path))
    if not done:
        return "no row was written yet; run the same command again to start over"
    try:
        empty = rows_path.stat().st_size == 0
    except OSError:
        empty = True
    if empty:
        return (f"every input row done so far was rejected, the reasons are in {rejects_path(rows_path)} (input rows "
                f"done: {done}); run the same command with --resume to continue")
    return (f"the rows written so far are in {rows_path} (input rows done: {done}); run the same command with "
            "--resume to continue")


def generate(
    input_path: Optional[Path] = typer.Argument(None, metavar="[IN.jsonl]",
                                                help="CRUXEval-format JSON Lines (id, code, input, output), Parquet, "
                                                     "HumanEval/MBPP rows, or a CodeMind/ExeRScope dataset folder. "
                                                     "Default: the small data set bundled with codemorph."),
    output: Path = typer.Option(Path("codemorph-out.jsonl"), "--output", "-o",
                                help="Output JSON Lines file (--format codemind: the dataset folder to write)."),
    fmt: str = typer.Option("jsonl", "--format", help="jsonl, or codemind: also write every row as "
                                                      "OUT/<bench>/<id>/{main.py,input.txt,output.txt}."),
    transform: Optional[List[str]] = typer.Option(None, "--transform", "-t",
                                                  help="Transform to apply (repeatable). Default: every built-in."),
    recipe: Optional[str] = typer.Option(None, "--recipe", "-r",
                                         help="Recipe: a TOML file or a built-in recipe name (see `codemorph recipes`)."),
    seed: int = typer.Option(0, help="Master seed; the same seed gives byte-identical output."),
    workers: int = typer.Option(0, help="Parallel worker processes, each with one sandbox worker "
                                        f"({DEFAULT_WORKERS_HELP}; each worker alternates between rewriting and "
                                        "waiting for its sandbox)."),
    extra_inputs: int = typer.Option(49, help="Mutated inputs per row used to verify each variant "
                                              "(50 inputs with the row's own)."),
    min_inputs: int = typer.Option(20, help="Fewest distinct inputs that must run the original and the variant "
                                            "to the end for status equivalent/proved; a variant compared on "
                                            "fewer is written with status weak."),
    timeout: float = typer.Option(5.0, help="Seconds per execution in the sandbox."),
    memory: int = typer.Option(2048, help="Address-space limit per execution in the sandbox, in MiB."),
    output_limit: int = typer.Option(1024, help="Captured stdout+stderr per execution, in KiB; a program "
                                               "writing more is stopped (status output-limit)."),
    resume: bool = typer.Option(False, "--resume", help="Continue an interrupted run of the same command: keep "
                                                        "the rows already written (see OUT.progress.jsonl). "
                                                        "Exits 2 while another run still writes OUT."),
    executor: str = typer.Option("local", help="Where rows are processed: local (--workers processes) or dask "
                                               "(a Dask distributed cluster; needs codemorph[dask])."),
    scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address for --executor dask, "
                                                       "e.g. tcp://10.0.0.1:8786."),
    prove: bool = typer.Option(False, "--prove", help="Also try to prove each variant's changed region "
                                                      "equivalent with Z3 (status 'proved'); falls back to testing."),
    perturb_inputs: bool = typer.Option(False, "--perturb-inputs",
                                        help="Also write, after each row's variants, the input perturbations "
                                             "`codemorph perturb` finds for it (kind input-perturbation)."),
    perturb_exception: Optional[List[str]] = typer.Option(
        None, "--perturb-exception", help="With --perturb-inputs: exception class to search (repeatable), or "
                                          "'any-exception'. Default: the same classes as `codemorph perturb`."),
    perturb_output_changes: int = typer.Option(1, help="With --perturb-inputs: output-changing inputs per row."),
    perturb_budget: int = typer.Option(1500, help="With --perturb-inputs: executions per row's search."),
    worker_memory: int = typer.Option(WORKER_MEMORY_MIB, "--worker-memory", metavar="MiB",
                                      help=WORKER_MEMORY_HELP),
    fail_on_error: bool = typer.Option(False, "--fail-on-error", help=FAIL_ON_ERROR_HELP),
    transform_time_limit: float = typer.Option(
        60.0, "--transform-time-limit", metavar="SECONDS",
        help="Stop a transform whose application to one program takes longer than this (wall clock, in the host "
             "process): that variant is rejected (stage transform, TransformTimeout), the run goes on; with "
             "--workers 2+, a worker still in it a grace later (stuck in C code) is killed and its row rejected "
             "(stage worker, WorkerOverran). 0: no limit."),
    max_naturalness_delta: Optional[float] = typer.Option(
        None, "--max-naturalness-delta", metavar="X",
        help="Reject (stage naturalness, in the rejects file) every variant whose naturalness_delta (bits per "
             "token over its original) is above X."),
) -> None:
    """Write, for every input row and transform, one verified variant row (plus the re-executed
    original rows).  Rows that cannot be processed go to OUT.rejects.jsonl with the reason."""
    from codemorph.rows.dataset import default_dataset_path
    from codemorph.jobs.generate import GenerateConfig, default_transforms, generate as run_generate
    from codemorph.sandbox.pool import Limits

    from codemorph.engine.recipes import load_recipe

    in_path = input_path or default_dataset_path()
    if not timeout > 0:
        fail(f"--timeout must be > 0 seconds, got {timeout:g}")
    if memory < 64:
        fail(f"--memory must be at least 64 MiB, got {memory}")
    if output_limit < 1:
        fail(f"--output-limit must be at least 1 KiB, got {output_limit}")
    if workers < 0:
        fail(f"--workers must be >= 0 (0 = one more than the CPUs this process may use), got {workers}")
    if extra_inputs < 0:
        fail(f"--extra-inputs must be >= 0, got {extra_inputs}")
    if max_naturalness_delta is not None and max_naturalness_delta != max_naturalness_delta:
        fail("--max-naturalness-delta must be a number of bits per token, not nan")
    if not transform_time_limit >= 0:
        fail(f"--transform-time-limit must be >= 0 seconds, got {transform_time_limit}")
    if min_inputs < 1:
        fail(f"--min-inputs must be >= 1, got {min_inputs}")
    rows_path, layout = output_target(output, fmt, in_path)
    from codemorph.jobs.executors import default_workers

    common = dict(seed=seed, workers=workers or default_workers(), extra_inputs=extra_inputs, min_inputs=min_inputs,
                  limits=Limits(timeout=timeout, memory=memory * 1024**2, output=output_limit * 1024), prove=prove,
                  max_naturalness_delta=max_naturalness_delta, worker_memory=worker_memory_bytes(worker_memory),
                  transform_time_limit=transform_time_limit or None)
    if perturb_inputs:
        from codemorph.jobs.perturb import DEFAULT_EXCEPTIONS, PerturbConfig
        from codemorph.perturb import Budget

        if perturb_budget < 1 or perturb_output_changes < 0:
            fail("--perturb-budget must be >= 1 execution and --perturb-output-changes >= 0")
        check_exception_targets(perturb_exception or (), "--perturb-exception")
        common["perturb"] = PerturbConfig(
            exceptions=tuple(perturb_exception) if perturb_exception else DEFAULT_EXCEPTIONS,
            output_changes=perturb_output_changes, budget=Budget(executions=perturb_budget), seed=seed)
    elif perturb_exception:
        fail("--perturb-exception needs --perturb-inputs")
    from codemorph.jobs.executors import make_executor
    try:
        runner = make_executor(executor, scheduler)
    except (ValueError, ImportError) as exc:
        fail(str(exc))
    try:
        if recipe and transform:
            fail("give either --recipe or --transform, not both")
        if recipe:
            config = GenerateConfig.from_recipe(load_recipe(recipe), **common)
        else:
            config = GenerateConfig.from_transforms(tuple(transform) if transform else default_transforms(), **common)
    except (InputError, UnknownTransformError) as exc:
        fail(str(exc))
    with locked_output(rows_path, resumable=True):  # the whole run, the CodeMind folder included: one writer per output
        try:
            with progress_bar("generate", interrupted=partial(interrupted_message, rows_path)) as tick:
                summary = run_generate(in_path, rows_path, config, progress=tick, resume=resume, executor=runner)
        except OutputWriteError as exc:
            fail(output_write_message(exc))
        except (InputError, UnknownTransformError) as exc:
            fail(str(exc))
        except (OSError, TimeoutError, ValueError) as exc:
            if executor != "dask":
                raise
            fail(f"cannot use the Dask scheduler {scheduler}: {type(exc).__name__}: {exc}")
        print_generate_summary(summary, in_path)
        if layout is not None:
            n = write_codemind_output(rows_path, layout, in_path)
            out_console.print(f"{n} row folders written to {layout} (CodeMind/ExeRScope layout)", highlight=False)
    exit_on_errors(summary.errors, fail_on_error)
