"""benchmarks/perturb_replay.py: every row ``perturb`` writes for a stdin program replays under
a plain ``python main.py < input`` (in a subprocess, in a fresh directory), and a row whose
recorded outcome a plain run does not give is reported as a mismatch."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

from paths import REPO

SCRIPT = REPO / "benchmarks" / "perturb_replay.py"
DIVIDE = "a, b = map(int, input().split())\nprint(a // b)\n"


def _module():
    spec = importlib.util.spec_from_file_location("perturb_replay", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_perturbation_of_a_stdin_program_replays_under_plain_python(tmp_path):
    row = tmp_path / "dataset" / "Avatar" / "divide"
    row.mkdir(parents=True)
    (row / "main.py").write_text(DIVIDE)
    (row / "input.txt").write_text("7 2\n")
    (row / "output.txt").write_text("3\n")
    res = subprocess.run([sys.executable, str(SCRIPT), str(row.parent), "-o", str(tmp_path / "out"),
                          "--workers", "1", "--budget", "300"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    table = res.stdout.splitlines()
    (line,) = [ln for ln in table if ln.startswith("| 1 |")]
    rows, findings, ok, mismatches, raising = (c.strip() for c in line.strip("|").split("|"))
    assert int(findings) >= 2 and ok == findings and mismatches == "0" and raising == "1 of 1 searched"
    classes = [ln for ln in table if ln.startswith("exception rows by class: ")][0]
    assert "ZeroDivisionError 1" in classes and "ValueError 1" in classes


def test_a_row_the_plain_run_contradicts_is_a_mismatch():
    mod = _module()
    base = {"code": DIVIDE, "input_kind": "stdin", "exception": None}
    assert mod.replay({**base, "input": "7 2\n", "output": "3\n"}) == (True, "printed '3\\n'")
    assert mod.replay({**base, "input": "7 2\n", "output": "4\n"}) == (False, "printed '3\\n'")
    zero = {**base, "input": "7 0\n", "output": None}
    assert mod.replay({**zero, "exception": {"type": "ZeroDivisionError"}}) == (True, "raised ZeroDivisionError (exit 1)")
    assert mod.replay({**zero, "exception": {"type": "ValueError"}}) == (False, "raised ZeroDivisionError (exit 1)")
    call = {"code": "def add(a, b):\n    return a + b\n", "input_kind": "call", "input": "add(2, 3)",
            "exception": None}
    assert mod.replay({**call, "output": "5"}) == (True, "returned 5")


def test_the_raised_class_is_read_from_the_last_traceback():
    mod = _module()
    err = ("Traceback (most recent call last):\n  File \"main.py\", line 1, in <module>\n    x()\n"
           "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n")
    assert mod.raised_class(err) == "JSONDecodeError"
    assert mod.raised_class("warning only\n") is None
