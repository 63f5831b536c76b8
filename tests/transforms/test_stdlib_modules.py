"""Real library modules keep their own test suites passing after ``codemorph apply`` with the
renaming transforms (issue 13, part 1).

Each module of :data:`MODULES` (keyword-heavy APIs, fast ``test.test_<module>`` suites) is
copied from the running interpreter's standard library, rewritten by ``codemorph apply FILE
-t rename-locals -t rename-functions -t rename-classes`` in a subprocess, and its own suite
is run in a fresh interpreter (``python -I -S``) with the rewrite first on ``sys.path``
before anything is imported (``unittest`` itself then imports the rewritten ``difflib``,
``fnmatch``...).  The test asserts that something was renamed and that the module imported
is the rewrite, so it can fail; :func:`test_forcing_public_parameters_breaks_the_suite`
shows that it does when public parameters are renamed on request.  These are the
interpreter's own trusted files, so they run as plain subprocesses, not in the sandbox.

The longer list (calendar, statistics, argparse, ... and modules of packages), each
transform on its own, is ``benchmarks/naming_stdlib.py``.
"""

from __future__ import annotations

import difflib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

#: modules whose suites run in about a second each
MODULES = ("textwrap", "shlex", "fnmatch", "string", "colorsys", "bisect", "cmd", "glob", "netrc", "plistlib",
           "random", "uuid")

RUNNER = """
import sys
sys.path.insert(0, {folder!r})
import importlib, unittest
module = importlib.import_module({module!r})
assert module.__file__.startswith({folder!r}), module.__file__
result = unittest.main(module={suite!r}, exit=False, verbosity=0).result
sys.exit(0 if result.wasSuccessful() and result.testsRun else 1)
"""


def _source(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not (spec.origin or "").endswith(".py"):
        pytest.skip(f"{module} has no .py source in this interpreter")
    try:
        suite = importlib.util.find_spec(f"test.test_{module}")
    except ModuleNotFoundError:
        suite = None
    if suite is None:
        pytest.skip(f"the standard library's test package (test.test_{module}) is not installed")
    return Path(spec.origin)


def _apply(path: Path, *options: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "codemorph.cli", "apply", str(path), "-t", "rename-locals", "-t",
           "rename-functions", "-t", "rename-classes", *options]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env={"COLUMNS": "1000",
                                                                                 "PATH": "/usr/bin:/bin"})


def _suite(module: str, folder: Path) -> subprocess.CompletedProcess:
    code = RUNNER.format(folder=str(folder), module=module, suite=f"test.test_{module}")
    return subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=folder)


@pytest.mark.parametrize("module", MODULES)
def test_renamed_module_passes_its_own_test_suite(module: str, tmp_path: Path) -> None:
    path = _source(module)
    original = path.read_text(encoding="utf-8")
    applied = _apply(path)
    assert applied.returncode == 0, applied.stderr
    assert "rename-locals: not applied" not in applied.stderr
    changed = [line for line in difflib.unified_diff(original.splitlines(), applied.stdout.splitlines(), lineterm="",
                                                     n=0) if line.startswith("+") and not line.startswith("+++")]
    assert changed, "nothing was renamed"
    (tmp_path / f"{module}.py").write_text(applied.stdout, encoding="utf-8")
    run = _suite(module, tmp_path)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]


def test_public_parameters_and_names_are_kept_by_apply() -> None:
    # textwrap.shorten(text, width, **kwargs) is the example of issue 13: callers pass width=
    path = _source("textwrap")
    applied = _apply(path)
    assert "\ndef shorten(text, width, **kwargs):\n" in applied.stdout
    assert "\nclass TextWrapper:\n" in applied.stdout
    assert "rename-functions: not applied: function dedent is a public module-level name" in applied.stderr


def test_forcing_public_parameters_breaks_the_suite(tmp_path: Path) -> None:
    # the check above can fail: renaming public parameters on request breaks test_textwrap
    path = _source("textwrap")
    applied = _apply(path, "-O", "rename-locals.parameters=all")
    assert applied.returncode == 0, applied.stderr
    assert "\ndef shorten(text, width, **kwargs):\n" not in applied.stdout
    (tmp_path / "textwrap.py").write_text(applied.stdout, encoding="utf-8")
    run = _suite("textwrap", tmp_path)
    assert run.returncode == 1
    assert "TypeError" in run.stderr
