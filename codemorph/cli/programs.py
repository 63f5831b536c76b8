"""The ``codemorph apply`` and ``codemorph verify`` commands: one program at a time."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List

import typer
from rich.markup import escape

from codemorph.cli.common import fail, out_console, err_console, read_text
from codemorph.errors import CodemorphError, InputError, ParseError, UnknownTransformError

__all__ = ["apply", "verify"]


def apply(file: Path = typer.Argument(..., help="Python source file to rewrite."),
          transform: List[str] = typer.Option(..., "--transform", "-t", help="Transform name; repeat to chain."),
          seed: int = typer.Option(0, help="Seed for every random choice."),
          entry: str = typer.Option("f", help="Entry-point function name."),
          option: List[str] = typer.Option([], "--option", "-O",
                                           help="Transform option KEY=VALUE (VALUE in TOML: all, true, 3, "
                                                "'text'); TRANSFORM.KEY=VALUE when several -t are given. "
                                                "Repeatable."),
          script: bool = typer.Option(False, "--script",
                                      help="FILE is a script run as `python FILE < input` (a stdin row's "
                                           "program): nothing imports it, so its module-level names and "
                                           "loops may be rewritten."),
          transform_time_limit: float = typer.Option(
              60.0, "--transform-time-limit", metavar="SECONDS",
              help="Stop a transform whose application takes longer than this (wall clock): it is reported not "
                   "applied (TransformTimeout) and the next one runs. 0: no limit."),
          ) -> None:
    """Print FILE rewritten by the transforms, in order.  When nothing applies, print the
    source unchanged and say why on stderr (exit 0).  FILE is taken as a module others may
    import: public names and their parameters keep their names unless an option asks; with
    ``--script`` it is a script no other code imports (``Program(..., script=True)``)."""
    from codemorph.engine.pipeline import Sequence_
    from codemorph.engine.program import Program
    from codemorph.engine.registry import get_transform

    from codemorph.engine.transform import set_time_limit

    if not transform_time_limit >= 0:
        fail(f"--transform-time-limit must be >= 0 seconds, got {transform_time_limit}")
    set_time_limit(transform_time_limit or None)
    source = read_text(file, "the program to rewrite")
    options = _parse_options(option, transform)
    try:
        program = Program(source, entry, filename=str(file), script=script)
        steps = []
        for t in transform:
            try:
                steps.append(get_transform(t, **options.get(t, {})))
            except (TypeError, ValueError) as exc:  # an option it does not take, a bad value
                fail(f"bad options for {t!r}: {exc}")
        pipeline = Sequence_(*steps)
    except (ParseError, UnknownTransformError, CodemorphError) as exc:
        fail(str(exc))
    result = pipeline.apply(program, seed)
    sys.stdout.write(result.program.source)
    for r in result.results:
        if not r.applied:
            err_console.print(f"{r.transform}: not applied: {r.reason}", highlight=False)
    if result.program.entry_point != entry:
        err_console.print(f"entry point is now {result.program.entry_point!r}", highlight=False)


def _parse_options(texts: List[str], transforms: List[str]) -> dict[str, dict]:
    """``--option`` values -> {transform name: {key: value}}; exits 2 on a malformed one."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    out: dict[str, dict] = {}
    for text in texts:
        key, eq, raw = text.partition("=")
        key = key.strip()
        if not eq or not key:
            fail(f"--option {text!r}: expected KEY=VALUE or TRANSFORM.KEY=VALUE")
        if ":" in key and "." not in key:
            fail(f"--option {text!r}: expected KEY=VALUE or TRANSFORM.KEY=VALUE (a dot after the transform, "
                 f"e.g. {key.replace(':', '.', 1)}={raw.strip()})")
        name, dot, key = key.rpartition(".")
        if not dot:
            if len(set(transforms)) != 1:
                fail(f"--option {text!r}: several transforms are given; write TRANSFORM.{key}=VALUE")
            name = transforms[0]
        if name not in transforms:
            fail(f"--option {text!r}: {name!r} is not one of the -t transforms")
        try:
            value = tomllib.loads(f"v = {raw.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw.strip()  # a bare word: all, entry-point, obfuscated
        out.setdefault(name, {})[key] = value
    return out


def verify(original: Path = typer.Argument(..., help="The original program."),
           rewritten: Path = typer.Argument(..., help="The rewritten program."),
           entry: str = typer.Option("f", help="Entry point of both programs."),
           input: List[str] = typer.Option(..., "--input", "-i", help="Argument-list literal, e.g. \"'abc', 3\"; repeatable."),
           input_kind: str = typer.Option("args", "--input-kind", help="args (argument lists of --entry), call "
                                           "(call expressions, e.g. \"Test().test()\") or stdin (standard inputs; "
                                           "standard outputs compared)."),
           extra_inputs: int = typer.Option(49, help="Type-preserving mutants of each input to test as well "
                                                     "(50 inputs with the seed)."),
           prove: bool = typer.Option(False, "--prove", help="Try to prove the changed region equivalent with Z3 "
                                                              "(status 'proved'); falls back to testing."),
           backend: str = typer.Option("sandbox", help="sandbox (differential testing) or crosshair (also a "
                                                        "bounded symbolic search; needs codemorph[crosshair])."),
           exception_policy: str = typer.Option("same-class", help="same-class or same-class-and-message."),
           seed: int = typer.Option(0),
           timeout: float = typer.Option(5.0, help="Seconds per execution."),
           min_inputs: int = typer.Option(20, help="Fewest distinct inputs that must run both programs to the end "
                                                   "for 'equivalent'; fewer give 'weak' (exit 4)."),
           ) -> None:
    """Differentially test REWRITTEN against ORIGINAL in the sandbox.  Exit 0 when
    equivalent on every input (at least --min-inputs distinct ones), 3 when they differ, 4
    when inconclusive or weak (fewer inputs compared; the reason says what could not be
    varied)."""
    from codemorph.engine.program import Program
    from codemorph.sandbox.pool import Limits
    from codemorph.verification.differential import verify as run_verify

    from codemorph.inputs import parse_args

    if extra_inputs < 0:
        fail(f"--extra-inputs must be >= 0, got {extra_inputs}")
    if not timeout > 0:
        fail(f"--timeout must be > 0 seconds, got {timeout:g}")
    if min_inputs < 1:
        fail(f"--min-inputs must be >= 1, got {min_inputs}")
    if input_kind not in ("args", "call", "stdin"):
        fail(f"--input-kind must be args, call or stdin, got {input_kind!r}")
    if backend not in ("sandbox", "crosshair"):
        fail(f"--backend must be sandbox or crosshair, got {backend!r}")
    if backend == "crosshair":
        import importlib.util

        if importlib.util.find_spec("crosshair") is None:
            fail("--backend crosshair needs CrossHair: pip install 'codemorph[crosshair]'")
    try:
        a = Program(read_text(original, "original"), entry, filename=str(original))
        b = Program(read_text(rewritten, "rewritten"), entry, filename=str(rewritten))
        for path, prog in ((original, a), (rewritten, b)):
            if input_kind == "args" and not prog.has_entry_point():
                fail(f"{path}: defines no top-level function {entry!r} (the entry point, --entry)")
        for i, text in enumerate(input, 1):
            try:
                if input_kind == "args":
                    parse_args(text)
            except InputError as exc:
                # a call such as list(range(5)) is evaluated in the sandbox; the text must
                # still be an argument list
                if not _argument_list(text):
                    fail(f"--input #{i}: {exc}; expected an argument-list literal such as \"'abc', [1, 2]\"")
        if input_kind == "stdin":
            a, b = (Program(p.source, entry, p.filename, script=True) for p in (a, b))
        verdict = run_verify(a, b, entry, input, extra_inputs=extra_inputs, seed=seed, limits=Limits(timeout=timeout),
                             prove=prove, backend=backend, exception_policy=exception_policy, min_inputs=min_inputs,
                             input_kind=input_kind)
    except (ParseError, InputError, ValueError) as exc:
        fail(str(exc))
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
            if input_kind == "stdin":  # a script's behaviour is what it prints (or raises)
                printed = f"printed {o.stdout!r}"
                if o.status == "returned":
                    return printed
                if o.exception is not None:
                    return f"{o.status} {o.exception.type}: {o.exception.message}" + (
                        f" after it {printed}" if o.stdout else "")
                return o.status
            if o.status == "returned":
                return f"returned {o.value_words(None)}" + (f", stdout {o.stdout!r}" if o.stdout else "")
            if o.exception is not None:
                return f"{o.status} {o.exception.type}: {o.exception.message}"
            return o.status
        shown = {"args": f"{entry}({cex.args})", "call": cex.args, "stdin": f"standard input {cex.args!r}"}
        out_console.print(escape(f"counterexample: {shown.get(input_kind, cex.args)}"), highlight=False)
        out_console.print(escape(f"  original:  {show(cex.original)}"), highlight=False)
        out_console.print(escape(f"  rewritten: {show(cex.rewritten)}"), highlight=False)
    raise typer.Exit({"equivalent": 0, "proved": 0, "differs": 3}.get(verdict.status, 4))


def _argument_list(text: str) -> bool:
    """Whether ``text`` parses as the arguments of a call (``list(range(5)), 'a'``); it is
    evaluated in the sandbox, never here."""
    import ast

    try:
        return isinstance(ast.parse(f"f({text}\n)", mode="eval").body, ast.Call)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
