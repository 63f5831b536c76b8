"""``codemorph apply --script`` rewrites FILE as a script (a stdin row's program, which nothing
imports): its module-level loops are sites; without the flag FILE is a module and they are not."""

from __future__ import annotations

from typer.testing import CliRunner

from codemorph.cli import app

SCRIPT = "total = 0\nfor i in range(int(input())):\n    total += i\nprint(total)\n"


def test_apply_script_rewrites_a_module_level_loop(tmp_path):
    path = tmp_path / "main.py"
    path.write_text(SCRIPT, encoding="utf-8")
    res = CliRunner().invoke(app, ["apply", str(path), "-t", "for-to-while", "--script"])
    assert res.exit_code == 0, res.output
    assert res.stdout == ("total = 0\nn = int(input())\ni = 0\nwhile i < n:\n    total += i\n    i += 1\n"
                          "print(total)\n")


def test_apply_without_script_keeps_a_module_level_loop_and_says_why(tmp_path):
    path = tmp_path / "main.py"
    path.write_text(SCRIPT, encoding="utf-8")
    res = CliRunner().invoke(app, ["apply", str(path), "-t", "for-to-while"])
    assert res.exit_code == 0
    assert res.stdout.startswith(SCRIPT)
    assert "loop at module level" in res.output
