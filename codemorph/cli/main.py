"""The ``codemorph`` command line (typer + rich).

Exit codes: 0 success (rows that could not be processed are in the rejects file, not
errors); 2 bad invocation or bad input (missing/empty file, unknown transform, a program
that does not parse); 1 an unexpected internal error.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from codemorph.errors import CodemorphError, InputError, ParseError, UnknownTransformError
from codemorph.jobs.executors import DEFAULT_WORKERS_HELP

# rich_markup_mode=None: help texts are plain, so extras such as codemorph[dask] print as written
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Rewrite Python programs with verified, semantics-preserving transforms.")
# a pipe or file gets 120 columns (rich's default of 80 would squeeze the summary table)
out_console = Console(width=None if sys.stdout.isatty() else 120)
err_console = Console(stderr=True)

EXIT_OK, EXIT_INTERNAL, EXIT_INPUT = 0, 1, 2


def _fail(message: str, code: int = EXIT_INPUT) -> None:
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _read_text(path: Path, what: str) -> str:
    if not path.exists():
        _fail(f"{path}: no such file ({what})")
    if path.is_dir():
        _fail(f"{path}: is a directory, expected a Python file ({what})")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        _fail(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})")
    raise AssertionError


def _check_output_path(output: Path, in_path: Path) -> None:
    """Refuse an output path that is a directory or one of the input files (exit 2)."""
    if output.is_dir():
        _fail(f"{output}: is a directory; expected an output file path (-o OUT.jsonl)")
    from codemorph.rows.dataset import input_files

    try:
        inputs = [Path(p).resolve() for p in input_files(in_path)]
    except (InputError, OSError):
        return  # the job reports a bad input path itself
    if output.resolve() in inputs:
        _fail(f"{output}: is one of the input files; writing it would destroy the input (choose another -o)")
    # the job writes OUT, OUT.rejects.jsonl and OUT.progress.jsonl; none of them may be
    # something the input directory or pattern would read (the run would read its own output)
    from codemorph.rows.dataset import progress_path, rejects_path

    written = [output.resolve(), rejects_path(output).resolve(), progress_path(output).resolve()]
    src = Path(in_path)
    if src.is_dir():
        clash = [w for w in written if w.parent == src.resolve()]
    elif not src.exists():
        import fnmatch

        pattern = os.path.abspath(str(src))
        clash = [w for w in written if fnmatch.fnmatch(str(w), pattern)]
    else:
        clash = []
    if clash:
        _fail(f"{output}: the output files ({', '.join(w.name for w in clash)}) would be read as input by "
              f"{in_path}; write them outside the input directory or pattern")


@app.command("list")
def list_cmd() -> None:
    """List the installed transforms (built-in and plugins) with family and description."""
    from codemorph.engine.registry import default_registry

    try:
        reg = default_registry()
    except CodemorphError as exc:
        _fail(str(exc))
    table = Table(title="codemorph transforms")
    table.add_column("name", style="bold")
    table.add_column("family")
    table.add_column("description")
    table.add_column("from")
    for name in reg.names():
        cls = reg.cls(name)
        table.add_row(name, cls.family, cls.description, reg.origin(name) or "-")
    out_console.print(table)
    for name, why in sorted(reg.broken.items()):
        err_console.print(f"[bold yellow]warning:[/] {why}", highlight=False)


@app.command()
def recipes() -> None:
    """List the built-in recipes (named, versioned pipelines for `generate --recipe`)."""
    from codemorph.engine.recipes import builtin_recipe_names, load_recipe

    table = Table(title="built-in recipes")
    for col in ("name", "version", "variants", "description"):
        table.add_column(col)
    for name in builtin_recipe_names():
        r = load_recipe(name)
        table.add_row(r.name, r.version, ", ".join(v.name for v in r.variants), r.description)
    out_console.print(table)


@app.command()
def apply(file: Path = typer.Argument(..., help="Python source file to rewrite."),
          transform: List[str] = typer.Option(..., "--transform", "-t", help="Transform name; repeat to chain."),
          seed: int = typer.Option(0, help="Seed for every random choice."),
          entry: str = typer.Option("f", help="Entry-point function name."),
          ) -> None:
    """Print FILE rewritten by the transforms, in order.  When nothing applies, print the
    source unchanged and say why on stderr (exit 0)."""
    from codemorph.engine.pipeline import Sequence_
    from codemorph.engine.program import Program
    from codemorph.engine.registry import get_transform

    source = _read_text(file, "the program to rewrite")
    try:
        program = Program(source, entry, filename=str(file))
        pipeline = Sequence_(*[get_transform(t) for t in transform])
    except (ParseError, UnknownTransformError, CodemorphError) as exc:
        _fail(str(exc))
    result = pipeline.apply(program, seed)
    sys.stdout.write(result.program.source)
    for r in result.results:
        if not r.applied:
            err_console.print(f"{r.transform}: not applied: {r.reason}", highlight=False)
    if result.program.entry_point != entry:
        err_console.print(f"entry point is now {result.program.entry_point!r}", highlight=False)


@app.command()
def verify(original: Path = typer.Argument(..., help="The original program."),
           rewritten: Path = typer.Argument(..., help="The rewritten program."),
           entry: str = typer.Option("f", help="Entry point of both programs."),
           input: List[str] = typer.Option(..., "--input", "-i", help="Argument-list literal, e.g. \"'abc', 3\"; repeatable."),
           extra_inputs: int = typer.Option(49, help="Type-preserving mutants of each input to test as well "
                                                     "(50 inputs with the seed)."),
           prove: bool = typer.Option(False, "--prove", help="Try to prove the changed region equivalent with Z3 "
                                                              "(status 'proved'); falls back to testing."),
           backend: str = typer.Option("sandbox", help="sandbox (differential testing) or crosshair (also a "
                                                        "bounded symbolic search; needs codemorph[crosshair])."),
           exception_policy: str = typer.Option("same-class", help="same-class or same-class-and-message."),
           seed: int = typer.Option(0),
           timeout: float = typer.Option(5.0, help="Seconds per execution."),
           ) -> None:
    """Differentially test REWRITTEN against ORIGINAL in the sandbox.  Exit 0 when
    equivalent on every input, 3 when they differ, 4 when inconclusive."""
    from codemorph.engine.program import Program
    from codemorph.sandbox.pool import Limits
    from codemorph.verification.differential import verify as run_verify

    from codemorph.inputs.core import parse_args

    if extra_inputs < 0:
        _fail(f"--extra-inputs must be >= 0, got {extra_inputs}")
    if backend not in ("sandbox", "crosshair"):
        _fail(f"--backend must be sandbox or crosshair, got {backend!r}")
    if backend == "crosshair":
        import importlib.util

        if importlib.util.find_spec("crosshair") is None:
            _fail("--backend crosshair needs CrossHair: pip install 'codemorph[crosshair]'")
    try:
        a = Program(_read_text(original, "original"), entry, filename=str(original))
        b = Program(_read_text(rewritten, "rewritten"), entry, filename=str(rewritten))
        for path, prog in ((original, a), (rewritten, b)):
            if not prog.has_entry_point():
                _fail(f"{path}: defines no top-level function {entry!r} (the entry point, --entry)")
        for i, text in enumerate(input, 1):
            try:
                parse_args(text)
            except InputError as exc:
                _fail(f"--input #{i}: {exc}; expected an argument-list literal such as \"'abc', [1, 2]\"")
        verdict = run_verify(a, b, entry, input, extra_inputs=extra_inputs, seed=seed, limits=Limits(timeout=timeout),
                             prove=prove, backend=backend, exception_policy=exception_policy)
    except (ParseError, InputError, ValueError) as exc:
        _fail(str(exc))
    if verdict.status == "differs":
        out_console.print(f"[bold]differs[/] (counterexample found after {verdict.inputs_checked} agreeing inputs)",
                          highlight=False)
    else:
        out_console.print(f"[bold]{verdict.status}[/] on {verdict.inputs_checked} inputs", highlight=False)
    if verdict.reason:
        out_console.print(f"reason: {escape(verdict.reason)}", highlight=False)
    cex = verdict.counterexample
    if cex is not None:
        def show(o):
            if o.status == "returned":
                return f"returned {o.value_words(None)}" + (f", stdout {o.stdout!r}" if o.stdout else "")
            if o.exception is not None:
                return f"{o.status} {o.exception.type}: {o.exception.message}"
            return o.status
        out_console.print(escape(f"counterexample: {entry}({cex.args})"), highlight=False)
        out_console.print(escape(f"  original:  {show(cex.original)}"), highlight=False)
        out_console.print(escape(f"  rewritten: {show(cex.rewritten)}"), highlight=False)
    raise typer.Exit({"equivalent": 0, "proved": 0, "differs": 3}.get(verdict.status, 4))


@app.command()
def generate(
    input_path: Optional[Path] = typer.Argument(None, metavar="[IN.jsonl]",
                                                help="CRUXEval-format JSON Lines (id, code, input, output). "
                                                     "Default: the small data set bundled with codemorph."),
    output: Path = typer.Option(Path("codemorph-out.jsonl"), "--output", "-o", help="Output JSON Lines file."),
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
    timeout: float = typer.Option(5.0, help="Seconds per execution in the sandbox."),
    memory: int = typer.Option(2048, help="Address-space limit per execution in the sandbox, in MiB."),
    output_limit: int = typer.Option(1024, help="Captured stdout+stderr per execution, in KiB; a program "
                                               "writing more is stopped (status output-limit)."),
    resume: bool = typer.Option(False, "--resume", help="Continue an interrupted run of the same command: keep "
                                                        "the rows already written (see OUT.progress.jsonl)."),
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
) -> None:
    """Write, for every input row and transform, one verified variant row (plus the re-executed
    original rows).  Rows that cannot be processed go to OUT.rejects.jsonl with the reason."""
    from codemorph.rows.dataset import default_dataset_path
    from codemorph.jobs.generate import GenerateConfig, default_transforms, generate as run_generate
    from codemorph.sandbox.pool import Limits

    from codemorph.engine.recipes import load_recipe

    in_path = input_path or default_dataset_path()
    if not timeout > 0 or memory < 64 or output_limit < 1:
        _fail("--timeout must be > 0 seconds, --memory at least 64 MiB, --output-limit at least 1 KiB")
    if workers < 0 or extra_inputs < 0:
        _fail(f"--workers and --extra-inputs must be >= 0, got {workers} and {extra_inputs}")
    _check_output_path(output, in_path)
    from codemorph.jobs.executors import default_workers

    common = dict(seed=seed, workers=workers or default_workers(), extra_inputs=extra_inputs,
                  limits=Limits(timeout=timeout, memory=memory * 1024**2, output=output_limit * 1024), prove=prove)
    if perturb_inputs:
        from codemorph.jobs.perturb import DEFAULT_EXCEPTIONS, PerturbConfig
        from codemorph.perturb import Budget

        if perturb_budget < 1 or perturb_output_changes < 0:
            _fail("--perturb-budget must be >= 1 execution and --perturb-output-changes >= 0")
        common["perturb"] = PerturbConfig(
            exceptions=tuple(perturb_exception) if perturb_exception else DEFAULT_EXCEPTIONS,
            output_changes=perturb_output_changes, budget=Budget(executions=perturb_budget), seed=seed)
    elif perturb_exception:
        _fail("--perturb-exception needs --perturb-inputs")
    from codemorph.jobs.executors import make_executor
    try:
        runner = make_executor(executor, scheduler)
    except (ValueError, ImportError) as exc:
        _fail(str(exc))
    try:
        if recipe and transform:
            _fail("give either --recipe or --transform, not both")
        if recipe:
            config = GenerateConfig.from_recipe(load_recipe(recipe), **common)
        else:
            config = GenerateConfig.from_transforms(tuple(transform) if transform else default_transforms(), **common)
    except (InputError, UnknownTransformError) as exc:
        _fail(str(exc))
    progress = Progress(TextColumn("[bold]generate[/]"), BarColumn(), MofNCompleteColumn(), TextColumn("rows"),
                        TimeElapsedColumn(), TimeRemainingColumn(), console=err_console, transient=False)
    try:
        with progress:
            task = progress.add_task("rows", total=None)

            def tick(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            summary = run_generate(in_path, output, config, progress=tick, resume=resume, executor=runner)
    except (InputError, UnknownTransformError) as exc:
        _fail(str(exc))
    except (OSError, TimeoutError, ValueError) as exc:
        if executor != "dask":
            raise
        _fail(f"cannot use the Dask scheduler {scheduler}: {type(exc).__name__}: {exc}")
    _print_summary(summary, in_path)


def _perturbations_words(summary) -> str:
    n = getattr(summary, "perturbations_written", 0)
    return f" and {n} input perturbations" if n else ""


def _print_summary(summary, in_path) -> None:
    table = Table(title=f"codemorph generate: {in_path} -> {summary.out_path}", title_justify="left")
    table.add_column("variant", no_wrap=True)
    for col in ("applied", "unreached", "not applicable", "differs", "inconclusive", "errors", "time (s)"):
        table.add_column(col, justify="right")
    for name, c in summary.per_transform.items():
        table.add_row(name, str(c["written"] + c["written-unreached"]), str(c["written-unreached"]),
                      str(c["not-applicable"]), str(c["rejected"]), str(c["inconclusive"]), str(c["error"]),
                      f"{summary.time_per_transform[name]:.1f}")
    out_console.print(table)
    out_console.print("applied: variants written (unreached: of those, verified on inputs that never ran the "
                      "changed code); differs: rejected by verification (in the rejects file)", highlight=False)
    out_console.print(
        f"{summary.rows_read} rows read: {summary.originals_written} originals and {summary.variants_written} "
        f"variants{_perturbations_words(summary)} written to {summary.out_path}; {summary.rows_rejected} rows rejected "
        f"(see {summary.rejects_path}); {summary.seconds:.1f} s", highlight=False)
    if getattr(summary, "rows_resumed", 0):
        out_console.print(f"resumed: the first {summary.rows_resumed} input rows were already done "
                          f"(not counted above)", highlight=False)


# ---------------------------------------------------------------------------------------------
# evaluate / analyze (owned by the evaluation module: codemorph/evaluate.py, codemorph/analyze.py)
# ---------------------------------------------------------------------------------------------

def _parse_ks(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        ks = []
    if not ks or min(ks) < 1:
        _fail(f"--k expects comma-separated positive integers such as 1,5; got {text!r}")
    return ks


def _pct(v) -> str:
    return "-" if v is None else f"{100 * v:.2f}"


def _pct1(v) -> str:
    if v is None:
        return "-"
    r = round(100 * v, 1)
    return f"{r if r != 0 else 0.0:.1f}"  # never "-0.0"


@app.command()
def evaluate(
    dataset: Path = typer.Argument(..., help="Data set: CRUXEval/codemorph JSON Lines, or a CodeMind dataset/<bench> folder."),
    predictions: Path = typer.Option(..., "--predictions", "-p",
                                     help="CRUXEval generations .json, JSON Lines {id, prediction}, or a "
                                          "CodeMind/ExeRScope folder (every model in it is scored)."),
    mode: str = typer.Option("output", help="output: predictions are values; input: predictions are calls f(...)."),
    k: str = typer.Option("1,5", "--k", help="Comma-separated k values of pass@k."),
    match: str = typer.Option("execution", help="execution (CRUXEval's harness, in the sandbox) or exact "
                                                "(ExeRScope's normalised string match)."),
    fmt: str = typer.Option("auto", "--format", help="Prediction format: auto, cruxeval, jsonl or codemind."),
    model: Optional[str] = typer.Option(None, help="Model name (default: from the file or folder)."),
    bench: Optional[str] = typer.Option(None, help="CodeMind layout: bench folder to read (e.g. cruxeval)."),
    strict: bool = typer.Option(False, help="Require each prediction to be one expression and parenthesise it."),
    missing: str = typer.Option("skip", help="Rows without a prediction: skip, or wrong (score 0)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write per-row scores (JSON Lines; input of analyze)."),
    summary: Optional[Path] = typer.Option(None, help="Write the summary and robustness metrics as JSON."),
    workers: int = typer.Option(0, help=f"Sandbox worker processes ({DEFAULT_WORKERS_HELP})."),
    timeout: float = typer.Option(3.0, help="Seconds per check program (CRUXEval's harness uses 3)."),
    seed: int = typer.Option(0, help="Seed of the bootstrap confidence intervals."),
    bootstrap: int = typer.Option(1000, help="Bootstrap resamples."),
    executor: str = typer.Option("local", help="Where check programs run: local (--workers sandbox processes) "
                                               "or dask (a Dask distributed cluster; needs codemorph[dask])."),
    scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address for --executor dask, "
                                                       "e.g. tcp://10.0.0.1:8786."),
    rows_per_task: int = typer.Option(8, help="Rows per Dask task (--executor dask)."),
) -> None:
    """Score model predictions on DATASET by execution in the sandbox, as CRUXEval's harness
    does (pass@k, unbiased estimator), with robustness metrics per transform when the data
    set was made by `codemorph generate`."""
    from codemorph.scoring.evaluate import evaluate_paths, write_scores, write_summary
    from codemorph.jobs.executors import default_workers

    if mode not in ("output", "input"):
        _fail(f"--mode must be output or input, got {mode!r}")
    if match not in ("execution", "exact"):
        _fail(f"--match must be execution or exact, got {match!r}")
    if missing not in ("skip", "wrong"):
        _fail(f"--missing must be skip or wrong, got {missing!r}")
    ks = _parse_ks(k)
    from codemorph.jobs.executors import make_executor
    try:
        runner = make_executor(executor, scheduler, rows_per_task)
    except (ValueError, ImportError) as exc:
        _fail(str(exc))
    progress = Progress(TextColumn("[bold]evaluate[/]"), BarColumn(), MofNCompleteColumn(), TextColumn("rows"),
                        TimeElapsedColumn(), console=err_console, transient=True)
    try:
        with progress:
            task = progress.add_task("rows", total=None)
            results = evaluate_paths(dataset, predictions, fmt=fmt, model=model, bench=bench, mode=mode, ks=ks,
                                     match=match, strict=strict, missing=missing,
                                     workers=workers or default_workers(), timeout=timeout, seed=seed,
                                     n_resamples=bootstrap, executor=runner,
                                     progress=lambda d, t: progress.update(task, completed=d, total=t))
        if output is not None:
            write_scores(results, output)
        if summary is not None:
            write_summary(results, summary)
    except (InputError, ValueError) as exc:
        _fail(str(exc))
    table = Table(title=f"codemorph evaluate ({mode} prediction, {match} match): {dataset}")
    table.add_column("model", style="bold")
    table.add_column("rows", justify="right")
    table.add_column("missing", justify="right")
    for kk in ks:
        table.add_column(f"pass@{kk} (%)", justify="right")
    table.add_column("accuracy (%)", justify="right")
    for r in results:
        table.add_row(r.model, str(len(r.rows)), str(len(r.missing)), *[_pct(r.pass_at_k.get(kk)) for kk in ks],
                      _pct(r.accuracy))
    out_console.print(table)
    for r in results:
        for w in r.warnings:
            err_console.print(f"{r.model}: warning: {w}", highlight=False)
        if r.unmatched:
            err_console.print(f"{r.model}: {len(r.unmatched)} predictions have no row in the data set "
                              f"(ignored), e.g. {r.unmatched[:3]}", highlight=False)
        conf = r.exception_confusion
        if conf and conf["classes"]:
            t = Table(title=f"{r.model}: exception answers per class (every generation; percent)")
            for col in ("class", "raised", "answered", "precision", "recall", "F1"):
                t.add_column(col, justify="left" if col == "class" else "right")
            for name, c in conf["classes"].items():
                t.add_row(name, str(c["support"]), str(c["predicted"]), _pct1(c["precision"]), _pct1(c["recall"]),
                          _pct1(c["f1"]))
            out_console.print(t)
            out_console.print(f"exception named where the call returns: {conf['false_exceptions']}; value answered "
                              f"where the call raises: {conf['missed_exceptions']} (confusion matrix: --summary)",
                              highlight=False)
        rob = r.robustness
        if rob is None or not rob.groups:
            continue
        t = Table(title=f"{r.model}: robustness (percent; bootstrap 95% intervals)")
        t.add_column("group", no_wrap=True)
        for col in ("rows", "acc.", "originals", "drop [95% CI]", "rel. drop", "robust acc. (paired)",
                    "flip rate (paired)"):
            t.add_column(col, justify="right", no_wrap=True)
        for g in rob.groups:
            ci = g.abs_drop_ci
            t.add_row(g.group, str(g.rows), _pct1(g.accuracy), _pct1(g.original_accuracy),
                      _pct1(g.abs_drop) + ("" if ci is None else f" [{_pct1(ci[0])}, {_pct1(ci[1])}]"),
                      _pct1(g.rel_drop), _pct1(g.robust_accuracy), _pct1(g.flip_rate))
        out_console.print(t)
        if rob.robust_accuracy is not None:
            out_console.print(f"paired robust accuracy (original and every variant correct at the same sample "
                              f"index): {_pct(rob.robust_accuracy)}% "
                              f"of {rob.robust_originals} originals", highlight=False)


@app.command()
def analyze(
    dataset: Path = typer.Argument(..., help="The data set the results were scored on."),
    results: List[Path] = typer.Option(..., "--results", "-r",
                                       help="Scores written by `codemorph evaluate -o`; repeat to compare models."),
    out_dir: Path = typer.Option(..., "--output", "-o", help="Report folder (CSV, JSON, PNG, report.html)."),
    dynamic: bool = typer.Option(True, help="Also measure each program by running it under a tracer in the sandbox."),
    plots: bool = typer.Option(True, help="Draw PNG plots (needs matplotlib: codemorph[analysis])."),
    workers: int = typer.Option(0, help=f"Sandbox worker processes ({DEFAULT_WORKERS_HELP})."),
    timeout: float = typer.Option(10.0, help="Seconds per traced execution."),
    seed: int = typer.Option(0, help="Seed of the bootstrap confidence intervals."),
) -> None:
    """Relate code properties (constructs, nesting, complexity, loop length, output type...)
    to the success of each model; write tables, plots and an HTML report to OUT_DIR."""
    from codemorph.scoring.analyze import analyze as run_analyze, write_report
    from codemorph.jobs.executors import default_workers

    if out_dir.exists() and not out_dir.is_dir():
        _fail(f"{out_dir}: exists and is not a folder; expected a report folder (-o REPORT_DIR)")
    try:
        report = run_analyze(dataset, results, dynamic=dynamic, workers=workers or default_workers(),
                             timeout=timeout, seed=seed)
        files = write_report(report, out_dir, plots=plots)
    except CodemorphError as exc:
        _fail(str(exc))
    table = Table(title=f"codemorph analyze: {dataset}")
    for col in ("model", "rows", "accuracy (%)", "Wilson 95% CI"):
        table.add_column(col, justify="left" if col == "model" else "right")
    for m in report.model_summary:
        table.add_row(m["model"], str(m["rows"]), _pct(m["accuracy"]),
                      "-" if m["ci_low"] is None else f"[{100 * m['ci_low']:.1f}, {100 * m['ci_high']:.1f}]")
    out_console.print(table)
    for note in report.notes:
        err_console.print(f"note: {note}", highlight=False)
    out_console.print(f"{len(files)} files written to {out_dir}; open {files['report.html']}", highlight=False)

# ------------------------------------------------------------------ end of evaluate / analyze


# -- perturb: input perturbation search (the command lives in codemorph.perturb.command) --
from codemorph.cli.perturb import perturb_command as _perturb_command  # noqa: E402

app.command("perturb")(_perturb_command)
app.add_typer(__import__("codemorph.cli.harness", fromlist=["app"]).app, name="harness")  # codemorph harness ...


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except CodemorphError as exc:  # anything that escaped a command's own handling
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        sys.exit(EXIT_INPUT)


if __name__ == "__main__":
    main()
