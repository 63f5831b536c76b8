"""The renaming transforms on real library modules: each standard-library module is rewritten
as ``codemorph apply FILE -t NAME`` does (no harness contract: public names and module-level
parameters are an API), then the module's own test suite (``test.test_<module>``) runs
against the rewrite.

For every module and every step (``rename-locals``, ``rename-functions``,
``rename-classes``, then the three chained as ``apply -t rename-locals -t rename-functions
-t rename-classes``) the script prints how many names were renamed (the sites of the
result: one per renamed binding, plus one per updated keyword argument), the first reason
given when a transform did not apply, and whether the suite passed against the rewrite.
Each module first runs its suite against an unchanged copy placed the same way (the
control): when that fails too (lower-case ``fail``), the suite cannot pass from a copied
file on this machine, and a rewrite is counted as failing (``FAIL``) only when other tests
fail against it than against the copy.

The suite runs in a fresh interpreter (``python -I -S -X frozen_modules=off``: only the
standard library on ``sys.path``, and frozen modules such as ``posixpath`` imported from
files) with the rewritten module's folder first on ``sys.path`` before anything is
imported, so ``unittest`` itself and every other module import the rewrite too; the script
checks that the module imported is the rewrite.  These are the interpreter's own, trusted
files, so they run as plain subprocesses, not in the sandbox.

Usage::

    python benchmarks/naming_stdlib.py                       # the default list below
    python benchmarks/naming_stdlib.py textwrap shlex        # chosen modules
    python benchmarks/naming_stdlib.py _strptime:strptime    # MODULE:SUITE runs test.test_SUITE
    python benchmarks/naming_stdlib.py urllib.parse:urlparse # a module of a package
    python benchmarks/naming_stdlib.py --option rename-locals.parameters=all textwrap

Modules whose ``test.test_<module>`` is not installed (the ``test`` package is optional in
some distributions) are listed as skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codemorph.engine.pipeline import Sequence_
from codemorph.engine.program import Program
from codemorph.engine.registry import get_transform

#: modules with keyword-heavy APIs and their own test.test_<module> suites
DEFAULT_MODULES = (
    "textwrap", "shlex", "difflib", "string", "fnmatch", "calendar", "statistics", "colorsys", "heapq",
    "bisect", "fractions", "pprint", "argparse", "optparse", "configparser", "ipaddress", "gettext",
    "base64", "html", "quopri", "graphlib", "getopt",
)
#: the first step is the control: an unchanged copy of the module, run the same way, so a
#: suite that cannot pass from a copied file (or fails on this machine) is not blamed on a transform
STEPS = ((), ("rename-locals",), ("rename-functions",), ("rename-classes",),
         ("rename-locals", "rename-functions", "rename-classes"))

RUNNER = """
import sys
sys.path.insert(0, {folder!r})
import importlib, unittest
module = importlib.import_module({module!r})
assert module.__file__.startswith({folder!r}), module.__file__
result = unittest.main(module={suite!r}, exit=False, verbosity=0).result
sys.exit(0 if result.wasSuccessful() and result.testsRun else 1)
"""


def source_of(module: str) -> Path | None:
    """The ``.py`` file of a standard-library module (a package's ``__init__.py``, the source a
    frozen module was frozen from; ``None`` for built-in ones)."""
    spec = importlib.util.find_spec(module)
    origin = getattr(spec, "origin", None)
    if origin == "frozen":  # posixpath, ntpath, runpy...: the suite runs with -X frozen_modules=off
        origin = getattr(spec.loader_state, "filename", None)
    return Path(origin) if origin and origin.endswith(".py") else None


def place(module: str, path: Path, source: str, folder: Path) -> None:
    """Write ``source`` as ``module`` (its file is ``path``) under ``folder``.

    A module of a package (``urllib.parse``, or ``json`` itself) needs its whole package:
    the top-level package is copied to ``folder`` and the one file replaced, so that the
    copy, not the installed package, is imported."""
    top = importlib.util.find_spec(module.partition(".")[0])
    if top.submodule_search_locations is None:
        (folder / path.name).write_text(source, encoding="utf-8")
        return
    package = Path(list(top.submodule_search_locations)[0])
    shutil.copytree(package, folder / package.name, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / package.name / path.relative_to(package)).write_text(source, encoding="utf-8")


def has_suite(suite: str) -> bool:
    """Whether ``test.test_<suite>`` is installed (found without importing it)."""
    try:
        return importlib.util.find_spec(f"test.test_{suite}") is not None
    except ModuleNotFoundError:
        return False


def run_suite(module: str, folder: Path, timeout: float = 600.0, suite: str | None = None
              ) -> tuple[bool, str, frozenset[str]]:
    """Run ``test.test_<suite>`` (``suite`` defaults to ``module``) with ``folder`` first on
    ``sys.path``; (passed, output tail, the ids of the tests that failed or errored).

    ``timeout`` is in seconds; a suite still running then counts as not passed."""
    code = RUNNER.format(folder=str(folder), module=module, suite=f"test.test_{suite or module}")
    try:
        proc = subprocess.run([sys.executable, "-I", "-S", "-X", "frozen_modules=off", "-c", code], capture_output=True, text=True,
                              timeout=timeout, cwd=folder)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {timeout:.0f} s", frozenset({"(timeout)"})
    output = proc.stdout + proc.stderr
    failed = frozenset(re.findall(r"^(?:FAIL|ERROR): (.*)$", output, flags=re.MULTILINE))
    return proc.returncode == 0, output[-2000:], failed


def rewrite(source: str, steps: tuple[str, ...], options: dict[str, dict]) -> tuple[str, int, list[str]]:
    """Apply ``steps`` as ``codemorph apply`` does; (new source, sites, reasons of steps not applied)."""
    pipeline = Sequence_(*[get_transform(t, **options.get(t, {})) for t in steps])
    result = pipeline.apply(Program(source), 0)
    sites = sum(len(r.sites) for r in result.results if r.applied)
    reasons = [f"{r.transform}: {r.reason}" for r in result.results if not r.applied]
    return result.program.source, sites, reasons


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", default=list(DEFAULT_MODULES))
    parser.add_argument("--option", "-O", action="append", default=[],
                        help="TRANSFORM.KEY=VALUE (VALUE a bare word, true/false or a number)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per suite run (default 600)")
    args = parser.parse_args(argv)
    options: dict[str, dict] = {}
    for text in args.option:
        key, _, raw = text.partition("=")
        name, _, key = key.rpartition(".")
        value: object = {"true": True, "false": False}.get(raw, raw)
        if isinstance(value, str) and value.lstrip("-").isdigit():
            value = int(value)
        options.setdefault(name, {})[key] = value
    failures = 0
    print(f"{'module':<14} {'step':<50} {'sites':>5}  suite  seconds  first reason when not applied")
    for spec in args.modules:
        module, _, suite = spec.partition(":")
        suite = suite or module
        path = source_of(module)
        if path is None or not has_suite(suite):
            print(f"{module:<14} skipped: {'no .py source' if path is None else f'test.test_{suite} not installed'}")
            continue
        source = path.read_text(encoding="utf-8")
        control_ok, control_failed = True, frozenset()
        for steps in STEPS:
            start = time.perf_counter()
            new, sites, reasons = rewrite(source, steps, options)
            with tempfile.TemporaryDirectory(prefix="naming-stdlib-") as tmp:
                place(module, path, new, Path(tmp))
                ok, tail, failed = run_suite(module, Path(tmp), args.timeout, suite)
            if not steps:
                control_ok, control_failed = ok, failed
            # a rewrite is blamed unless the unchanged copy failed the very same tests
            same = not ok and not control_ok and steps and failed == control_failed
            failures += not ok and not same
            reason = reasons[0][:90] if reasons else ""
            verdict = "pass" if ok else ("fail" if same or not steps else "FAIL")
            print(f"{module:<14} {' + '.join(steps) or '(unchanged copy: control)':<50} {sites:>5}  {verdict}   "
                  f"{time.perf_counter() - start:6.1f}  {reason}", flush=True)
            if not ok:
                print("    " + tail.strip().replace("\n", "\n    ")[-800:])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
