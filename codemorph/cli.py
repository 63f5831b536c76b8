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
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from .errors import CodemorphError, InputError, ParseError, UnknownTransformError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Rewrite Python programs with verified, semantics-preserving transforms.")
out_console = Console()
err_console = Console(stderr=True)

EXIT_OK, EXIT_INTERNAL, EXIT_INPUT = 0, 1, 2


def _fail(message: str, code: int = EXIT_INPUT) -> None:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
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


@app.command("list")
def list_cmd() -> None:
    """List the installed transforms (built-in and plugins) with family and description."""
    from .registry import default_registry

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
    from .recipes import builtin_recipe_names, load_recipe

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
    from .pipeline import Sequence_
    from .program import Program
    from .registry import get_transform

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
           extra_inputs: int = typer.Option(20, help="Type-preserving mutants of each input to test as well."),
           seed: int = typer.Option(0),
           timeout: float = typer.Option(5.0, help="Seconds per execution."),
           ) -> None:
    """Differentially test REWRITTEN against ORIGINAL in the sandbox.  Exit 0 when
    equivalent on every input, 3 when they differ, 4 when inconclusive."""
    from .program import Program
    from .sandbox import Limits
    from .verification import verify as run_verify

    try:
        a = Program(_read_text(original, "original"), entry, filename=str(original))
        b = Program(_read_text(rewritten, "rewritten"), entry, filename=str(rewritten))
        verdict = run_verify(a, b, entry, input, extra_inputs=extra_inputs, seed=seed, limits=Limits(timeout=timeout))
    except (ParseError, InputError) as exc:
        _fail(str(exc))
    out_console.print(f"[bold]{verdict.status}[/] on {verdict.inputs_checked} inputs", highlight=False)
    if verdict.reason:
        out_console.print(f"reason: {verdict.reason}", highlight=False)
    cex = verdict.counterexample
    if cex is not None:
        def show(o):
            if o.status == "returned":
                return f"returned {o.value_repr}" + (f", stdout {o.stdout!r}" if o.stdout else "")
            if o.exception is not None:
                return f"{o.status} {o.exception.type}: {o.exception.message}"
            return o.status
        out_console.print(f"counterexample: f({cex.args})", highlight=False)
        out_console.print(f"  original:  {show(cex.original)}", highlight=False)
        out_console.print(f"  rewritten: {show(cex.rewritten)}", highlight=False)
    raise typer.Exit({"equivalent": 0, "differs": 3}.get(verdict.status, 4))


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
    workers: int = typer.Option(0, help="Parallel worker processes (0 = number of CPUs)."),
    extra_inputs: int = typer.Option(20, help="Mutated inputs per row used to verify each variant."),
    timeout: float = typer.Option(5.0, help="Seconds per execution in the sandbox."),
) -> None:
    """Write, for every input row and transform, one verified variant row (plus the re-executed
    original rows).  Rows that cannot be processed go to OUT.rejects.jsonl with the reason."""
    from .dataset import default_dataset_path
    from .generate import GenerateConfig, default_transforms, generate as run_generate
    from .sandbox import Limits

    from .recipes import load_recipe

    in_path = input_path or default_dataset_path()
    common = dict(seed=seed, workers=workers or (os.cpu_count() or 1), extra_inputs=extra_inputs,
                  limits=Limits(timeout=timeout))
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

            summary = run_generate(in_path, output, config, progress=tick)
    except (InputError, UnknownTransformError) as exc:
        _fail(str(exc))
    _print_summary(summary, in_path)


def _print_summary(summary, in_path) -> None:
    table = Table(title=f"codemorph generate: {in_path} -> {summary.out_path}")
    for col, just in (("transform", "left"), ("applied", "right"), ("not applicable", "right"),
                      ("rejected by verification", "right"), ("inconclusive", "right"), ("errors", "right"),
                      ("time (s)", "right")):
        table.add_column(col, justify=just)
    for name, c in summary.per_transform.items():
        table.add_row(name, str(c["written"]), str(c["not-applicable"]), str(c["rejected"]),
                      str(c["inconclusive"]), str(c["error"]), f"{summary.time_per_transform[name]:.1f}")
    out_console.print(table)
    out_console.print(
        f"{summary.rows_read} rows read: {summary.originals_written} originals and {summary.variants_written} "
        f"variants written to {summary.out_path}; {summary.rows_rejected} rows rejected "
        f"(see {summary.rejects_path}); {summary.seconds:.1f} s", highlight=False)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except CodemorphError as exc:  # anything that escaped a command's own handling
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        sys.exit(EXIT_INPUT)


if __name__ == "__main__":
    main()
