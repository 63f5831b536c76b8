"""``codemorph verify``'s verdicts and exit codes (3 differs, 4 inconclusive or weak) on
seeds that mutation alone cannot vary (the CLI is a subprocess)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CLI = Path(sys.executable).parent / "codemorph"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


# verify's verdicts (exit 3 differs, 4 inconclusive or weak)
def test_verify_finds_the_difference_behind_an_empty_list_seed(tmp_path):
    (tmp_path / "a.py").write_text("def f(xs):\n    return sum(xs)\n")
    (tmp_path / "b.py").write_text("def f(xs):\n    if len(xs) >= 3:\n        return -sum(xs)\n    return sum(xs)\n")
    res = run("verify", "a.py", "b.py", "-i", "[]", cwd=tmp_path)
    assert res.returncode == 3, res.stdout + res.stderr
    assert res.stdout.startswith("differs") and "counterexample: f([" in res.stdout


def test_verify_on_fewer_than_min_inputs_exits_4_and_says_what_it_could_not_vary(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    (tmp_path / "b.py").write_text("def f():\n    return 2 - 1\n")
    res = run("verify", "a.py", "b.py", "-i", "", cwd=tmp_path)
    assert res.returncode == 4, res.stdout + res.stderr
    flat = " ".join(res.stdout.split())
    assert flat.startswith("weak on 1 inputs") and "called with no arguments: there is nothing to vary" in flat
    ok = run("verify", "a.py", "b.py", "-i", "", "--min-inputs", "1", cwd=tmp_path)
    assert ok.returncode == 0 and ok.stdout.startswith("equivalent on 1 inputs")


def test_verify_accepts_a_call_input_and_evaluates_it_in_the_sandbox(tmp_path):
    (tmp_path / "a.py").write_text("def f(xs):\n    return sum(xs)\n")
    (tmp_path / "b.py").write_text("def f(xs):\n    return sum(xs) + 0\n")
    res = run("verify", "a.py", "b.py", "-i", "list(range(5))", cwd=tmp_path)
    assert res.returncode == 0 and res.stdout.startswith("equivalent on 50 inputs"), res.stdout + res.stderr


def test_verify_names_a_timeout_that_is_not_positive_as_generate_does(tmp_path):
    from typer.testing import CliRunner

    from codemorph.cli.main import app

    (tmp_path / "a.py").write_text("def f(x):\n    return x\n")
    res = CliRunner().invoke(app, ["verify", str(tmp_path / "a.py"), str(tmp_path / "a.py"), "-i", "1",
                                   "--timeout", "0"])
    assert res.exit_code == 2
    assert "error: --timeout must be > 0 seconds, got 0" in " ".join(res.output.split())
