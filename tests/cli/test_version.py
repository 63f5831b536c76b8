"""`codemorph --version` prints the installed version (package metadata) and exits 0."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

CLI = Path(sys.executable).parent / "codemorph"


def test_version_option_prints_the_installed_version():
    res = subprocess.run([str(CLI), "--version"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout == f"codemorph {version('codemorph')}\n"


def test_commands_run_as_before_with_the_version_option_defined():
    res = subprocess.run([str(CLI), "recipes"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and "built-in recipes" in res.stdout
