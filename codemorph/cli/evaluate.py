"""The ``codemorph evaluate`` and ``codemorph analyze`` commands: scoring model predictions
and relating code properties to them."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from codemorph.cli.common import (DEFAULT_WORKERS_HELP, err_console, fail, out_console, pct, pct1, print_table,
                                   progress_bar)
from codemorph.cli import EXIT_INTERRUPTED
from codemorph.errors import CodemorphError, InputError

__all__ = ["evaluate", "analyze"]


def _parse_ks(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        ks = []
    if not ks or min(ks) < 1:
        fail(f"--k expects comma-separated positive integers such as 1,5; got {text!r}")
    return ks


def _fail_when_nothing_matches(results, dataset: Path, predictions: Path) -> None:
    """Exit 2 when no prediction of any model names a row of the data set: the ids of the
    two files do not match (another data set, another id scheme), and an empty table with
    exit 0 would read as a scored run."""
    if not results or any(s.status != ["missing"] for r in results for s in r.rows) or \
            any(r.unrunnable for r in results):
        return
    pred_ids = [i for r in results for i in r.unmatched][:3]
    row_ids = (results[0].missing or [s.id for s in results[0].rows])[:3]
    fail(f"no prediction in {predictions} names a row of {dataset}: the predictions' ids are e.g. "
         f"{', '.join(map(repr, pred_ids)) or 'none'}, the rows' ids e.g. {', '.join(map(repr, row_ids))}; "
         f"expected predictions keyed by the data set's row ids (a CodeMind layout with several benches: "
         f"<bench>/<id>, or give --bench)")


def evaluate(
    dataset: Path = typer.Argument(..., help="Data set, read as generate reads it: CRUXEval/codemorph JSON Lines "
                                             "(also .gz; HumanEval/MBPP layouts, Parquet, a folder of shards), or "
                                             "a CodeMind/ExeRScope folder (dataset/<bench>, dataset/ or the layout "
                                             "root)."),
    predictions_given: List[Path] = typer.Option(..., "--predictions", "-p",
                                                 help="CRUXEval generations .json, JSON Lines {id, prediction}, "
                                                      "or a CodeMind/ExeRScope folder (every model in it is "
                                                      "scored); one per run."),
    mode: str = typer.Option("output", help="output: predictions are values; input: predictions are calls f(...)."),
    k: str = typer.Option("1,5", "--k", help="Comma-separated k values of pass@k."),
    match: str = typer.Option("execution", help="execution (CRUXEval's harness, in the sandbox) or exact "
                                                "(ExeRScope's normalised string match)."),
    fmt: str = typer.Option("auto", "--format", help="Prediction format: auto, cruxeval, jsonl or codemind."),
    model: Optional[str] = typer.Option(None, help="Model name (default: from the file or folder)."),
    bench: Optional[str] = typer.Option(None, help="CodeMind layout: bench folder to read (e.g. cruxeval); "
                                                   "default: every bench, ids <bench>/<id>."),
    strict: bool = typer.Option(False, help="Require each prediction to be one expression and parenthesise it; "
                                            "an output answer may not call the function, an input answer must "
                                            "be one call of it."),
    missing: str = typer.Option("skip", help="Rows without a prediction: skip, or wrong (score 0)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write per-row scores (JSON Lines; input of analyze)."),
    summary: Optional[Path] = typer.Option(None, help="Write the summary and robustness metrics as JSON."),
    rejects: Optional[Path] = typer.Option(None, help="Where malformed prediction entries go (JSON Lines: file, "
                                                      "line, id, model, reason); default OUT.rejects.jsonl with -o OUT "
                                                      "(always written), else PRED.rejects.jsonl in the current "
                                                      "folder (written only when an entry was rejected)."),
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
    set was made by `codemorph generate`.  A malformed prediction entry is written to the
    rejects file and its row counts as missing; the run goes on."""
    from codemorph.rows.dataset import rejects_path
    from codemorph.scoring.evaluate import (evaluate_paths, prediction_rejects, write_rejects, write_scores,
                                            write_summary)
    from codemorph.jobs.executors import default_workers

    if len(predictions_given) > 1:
        # click keeps the last of a repeated option: the other files' models would vanish
        fail(f"--predictions is given {len(predictions_given)} times ({', '.join(map(str, predictions_given))}); "
             f"expected one file or folder per run: run evaluate once per file (and analyze their score files "
             f"together, --results A --results B), or put the models in one JSON Lines file with a 'model' field")
    predictions = predictions_given[0]
    if mode not in ("output", "input"):
        fail(f"--mode must be output or input, got {mode!r}")
    if match not in ("execution", "exact"):
        fail(f"--match must be execution or exact, got {match!r}")
    if missing not in ("skip", "wrong"):
        fail(f"--missing must be skip or wrong, got {missing!r}")
    if not timeout > 0:  # 0 or less would score every right answer a timeout (NaN too)
        fail(f"--timeout must be > 0 seconds, got {timeout:g}")
    ks = _parse_ks(k)
    rejects_file = rejects or (rejects_path(output) if output is not None else
                               rejects_path(Path(predictions.name).with_suffix(".jsonl")))
    inputs = {x.resolve() for x in (dataset, predictions)}
    for flag, written in (("-o", output), ("--summary", summary)):
        if written is not None and written.resolve() in inputs:
            fail(f"{written}: is one of the input files; writing it would destroy the input (choose another "
                 f"{flag})")
    if output is not None and summary is not None and output.resolve() == summary.resolve():
        fail(f"{output}: -o and --summary name the same file; choose two files")
    if rejects_file.resolve() in {x.resolve() for x in (dataset, predictions, output, summary) if x is not None}:
        fail(f"{rejects_file}: the rejects file would overwrite an input or output file; give another --rejects")
    from codemorph.jobs.executors import make_executor
    try:
        runner = make_executor(executor, scheduler, rows_per_task)
    except (ValueError, ImportError) as exc:
        fail(str(exc))
    try:
        with progress_bar("evaluate", remaining=False, transient=True) as tick:
            results = evaluate_paths(dataset, predictions, fmt=fmt, model=model, bench=bench, mode=mode, ks=ks,
                                     match=match, strict=strict, missing=missing,
                                     workers=workers or default_workers(), timeout=timeout, seed=seed,
                                     n_resamples=bootstrap, executor=runner, progress=tick)
        _fail_when_nothing_matches(results, dataset, predictions)
        rejected = prediction_rejects(results)
        if rejected or output is not None or rejects is not None:
            write_rejects(results, rejects_file)
        if output is not None:
            write_scores(results, output)
        if summary is not None:
            write_summary(results, summary)
    except (InputError, ValueError) as exc:
        fail(str(exc))
    except OSError as exc:  # a full disk, a quota: one line, not a traceback
        fail(f"cannot write {exc.filename or 'an output file'}: {exc.strerror or exc}")
    table = Table(title=f"codemorph evaluate ({mode} prediction, {match} match): {dataset}")
    table.add_column("model", style="bold")
    table.add_column("rows", justify="right")
    table.add_column("missing", justify="right")
    table.add_column("rejected", justify="right")
    for kk in ks:
        table.add_column(f"pass@{kk} (%)", justify="right")
    table.add_column("accuracy (%)", justify="right")

    def pass_cell(r, kk: int) -> str:
        # pass@k over fewer rows than were scored (rows with fewer than k generations are
        # left out) says over how many
        used = r.pass_at_k_rows.get(kk, 0)
        return pct(r.pass_at_k.get(kk)) + (f" ({used}/{len(r.rows)} rows)" if 0 < used < len(r.rows) else "")

    for r in results:
        table.add_row(r.model, str(len(r.rows)), str(len(r.missing)), str(len(r.rejected_rows)),
                      *[pass_cell(r, kk) for kk in ks],
                      pct(r.accuracy))
    print_table(table, out_console)
    if rejected:
        from codemorph.scoring.predictions import reject_model

        per_model: dict[str, int] = {}
        for j in rejected:
            who = reject_model(j)
            per_model[who if who is not None else "no model"] = per_model.get(who if who is not None else "no model", 0) + 1
        whose = (" (" + ", ".join(f"{m}: {c}" for m, c in per_model.items()) + ")") if len(results) > 1 else ""
        err_console.print(f"{len(rejected)} prediction entries rejected{whose} (not scored; their rows count as "
                          f"missing): see {rejects_file}", highlight=False)
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
                t.add_row(name, str(c["support"]), str(c["predicted"]), pct1(c["precision"]), pct1(c["recall"]),
                          pct1(c["f1"]))
            print_table(t, out_console)
            out_console.print(f"exception named where the call returns: {conf['false_exceptions']}; value answered "
                              f"where the call raises: {conf['missed_exceptions']} (confusion matrix: --summary)",
                              highlight=False)
        rob = r.robustness
        if rob is None or not rob.groups:
            continue
        t = Table(title=f"{r.model}: robustness (percent; bootstrap 95% intervals)")
        t.add_column("group", no_wrap=True)
        for col in ("rows", "acc.", "originals", "drop [95% CI]", "rel.\ndrop", "robust acc.\n(paired)",
                    "flip rate\n(paired)"):
            t.add_column(col, justify="right", no_wrap=True)
        for g in rob.groups:
            ci = g.abs_drop_ci
            t.add_row(g.group, str(g.rows), pct1(g.accuracy), pct1(g.original_accuracy),
                      pct1(g.abs_drop) + ("" if ci is None else f" [{pct1(ci[0])}, {pct1(ci[1])}]"),
                      pct1(g.rel_drop), pct1(g.robust_accuracy), pct1(g.flip_rate))
        print_table(t, out_console)
        if rob.robust_accuracy is not None:
            out_console.print(f"paired robust accuracy (original and every variant correct at the same sample "
                              f"index): {pct(rob.robust_accuracy)}% "
                              f"of {rob.robust_originals} originals", highlight=False)


def analyze(
    dataset: Path = typer.Argument(..., help="The data set the results were scored on (read as evaluate reads it)."),
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
        fail(f"{out_dir}: exists and is not a folder; expected a report folder (-o REPORT_DIR)")
    if not timeout > 0:
        fail(f"--timeout must be > 0 seconds, got {timeout:g}")
    writing = False
    try:
        if plots:
            from codemorph.scoring.report import require_matplotlib

            require_matplotlib()  # before the analysis, not after minutes of it
        report = run_analyze(dataset, results, dynamic=dynamic, workers=workers or default_workers(),
                             timeout=timeout, seed=seed)
        writing = True
        files = write_report(report, out_dir, plots=plots)
    except CodemorphError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        err_console.print("[bold red]error:[/] analyze interrupted; " +
                          (f"the report in {out_dir} is incomplete" if writing else "no report was written"),
                          highlight=False)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except OSError as exc:  # a full disk, a quota: one line, not a traceback
        fail(f"cannot write {exc.filename or 'the report'}: {exc.strerror or exc}; the report in {out_dir} is "
             "incomplete")
    table = Table(title=f"codemorph analyze: {dataset}")
    for col in ("model", "rows", "accuracy (%)", "Wilson 95% CI"):
        table.add_column(col, justify="left" if col == "model" else "right")
    for m in report.model_summary:
        table.add_row(m["model"], str(m["rows"]), pct(m["accuracy"]),
                      "-" if m["ci_low"] is None else f"[{100 * m['ci_low']:.1f}, {100 * m['ci_high']:.1f}]")
    print_table(table, out_console)
    if report.naturalness:
        nat = Table(title="naturalness per transform (bits per token over the original)")
        for col in ("transform", "variants", "mean", "median"):
            nat.add_column(col, justify="left" if col == "transform" else "right")
        for n in report.naturalness:
            nat.add_row(n["group"], str(n["variants"]), f"{n['mean']:+.3f}", f"{n['median']:+.3f}")
        print_table(nat, out_console)
    for note in report.notes:
        err_console.print(f"note: {note}", highlight=False)
    out_console.print(f"{len(files)} files written to {out_dir}; open {files['report.html']}", highlight=False)
