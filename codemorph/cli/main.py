"""The ``codemorph`` command line (typer + rich): the app, with every command registered.

Each command lives in its own module (:mod:`~codemorph.cli.listing`: ``list``,
``recipes``; :mod:`~codemorph.cli.programs`: ``apply``, ``verify``;
:mod:`~codemorph.cli.generate`; :mod:`~codemorph.cli.evaluate`: ``evaluate``,
``analyze``; :mod:`~codemorph.cli.perturb`), sharing :mod:`codemorph.cli.common`.

Exit codes: 0 the run finished (rows that could not be processed are in the rejects file,
not errors; so are unexpected exceptions a transform or a row raised, counted in the
summary, unless ``--fail-on-error``: then 1); 2 bad invocation or bad input (missing/empty
file, unknown transform, a program that does not parse); 1 an unexpected internal error;
130 interrupted by Ctrl-C or ``SIGTERM`` (:func:`codemorph.cli.handle_interruptions`).
"""

from __future__ import annotations

import sys

import typer

from codemorph.cli import EXIT_INTERRUPTED, handle_interruptions
from codemorph.cli.common import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, err_console, out_console  # noqa: F401
from codemorph.cli.evaluate import analyze, evaluate
from codemorph.cli.generate import generate
from codemorph.cli.harness import app as harness_app
from codemorph.cli.listing import list_cmd, recipes
from codemorph.cli.perturb import perturb_command
from codemorph.cli.programs import apply, verify
from codemorph.errors import CodemorphError

__all__ = ["app", "main", "EXIT_OK", "EXIT_INTERNAL", "EXIT_INPUT"]

# rich_markup_mode=None: help texts are plain, so extras such as codemorph[dask] print as written
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Rewrite Python programs with verified, semantics-preserving transforms.")


def _print_version(value: bool) -> None:
    if not value:
        return
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("codemorph")
    except PackageNotFoundError:  # run from a source tree that was never installed
        installed = "(version unknown: the package is not installed)"
    out_console.print(f"codemorph {installed}", highlight=False)
    raise typer.Exit()


@app.callback()
def _options(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                          help="Print the installed version of codemorph and exit.")) -> None:
    """Rewrite Python programs with verified, semantics-preserving transforms."""


app.command("list")(list_cmd)
app.command()(recipes)
app.command()(apply)
app.command()(verify)
app.command()(generate)
app.command()(evaluate)
app.command()(analyze)
app.command("perturb")(perturb_command)
app.add_typer(harness_app, name="harness")


def main() -> None:
    """Run the command line (``python -m codemorph.cli``; the console script goes through
    :func:`codemorph.cli.main`, which calls this): interruptions are handled
    (:func:`codemorph.cli.handle_interruptions`; installed again here, harmlessly), and one
    that escapes a command's own handling ends with ``error: interrupted``, exit 130."""
    handle_interruptions()
    try:
        app()
    except CodemorphError as exc:  # anything that escaped a command's own handling
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        sys.exit(EXIT_INPUT)
    except KeyboardInterrupt:
        err_console.print("[bold red]error:[/] interrupted", highlight=False)
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    main()
